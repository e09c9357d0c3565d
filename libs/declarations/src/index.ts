export * from './names';
export * from './return-url';
export * from './grid-pages';
