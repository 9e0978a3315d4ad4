export * from './compression-codecs';
export * from './undecodable-batch';
