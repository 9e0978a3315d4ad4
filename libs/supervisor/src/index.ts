// Keeping local processes running as compose's `restart: on-failure` does: `npm run stack`
// (tools/stack) runs the pipeline with it, and the browser tests run service instances with it.
export * from './supervisor';
