export * from './console-build';
export * from './console-pages.controller';
export * from './console.module';
export * from './precompressed-assets.middleware';
