export * from './names';
export * from './return-url';
