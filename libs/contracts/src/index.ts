export * from './topics/topic-names';
export * from './topics/topic-catalogue';
export * from './envelope/header-names';
