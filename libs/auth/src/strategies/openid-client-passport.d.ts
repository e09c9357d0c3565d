/**
 * openid-client publishes its Passport strategy as the subpath export `openid-client/passport`; this
 * project's TypeScript module resolution ("node") does not read package exports, so the name is pointed at
 * the file the export names. Node and Jest resolve the export itself at run time.
 */
declare module 'openid-client/passport' {
  export * from 'openid-client/build/passport';
}
