/** Injects the service's validated, typed config object. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
