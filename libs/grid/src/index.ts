export * from './grid-definition';
export * from './grid-query';
export * from './grid-engine';
export * from './statistics';
export * from './sampling';
export * from './dialects';
