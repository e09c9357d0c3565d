export * from './client-address';
export * from './request-cookies';
export * from './row-versions';
export * from './conditional-get';
export * from './paging';
export * from './record-answers.interceptor';
export * from './forwarded-request';
