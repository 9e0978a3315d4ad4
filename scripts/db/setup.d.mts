// Types for setup.mjs.
export declare function setup(options?: { log?: (line: string) => void }): Promise<void>;
