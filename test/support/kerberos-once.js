'use strict';
/**
 * Jest only (jest.config.js maps `kerberos` here). Jest takes a native add-on from Node's own require cache,
 * so every test file of a worker shares ONE binding, but it evaluates the add-on's JavaScript again for each
 * test file. kerberos/lib/index.js replaces KerberosServer.prototype.step (and the client's step, wrap and
 * unwrap) with a promise wrapper around whatever it finds there: from the second test file on it would wrap
 * the previous file's wrapper, whose callback never fires, and every GSS step would hang. The native methods
 * are kept on the shared binding the first time and put back before the library is evaluated again. The
 * service itself loads the add-on once and never comes here.
 */
const { dirname, join } = require('node:path');

const lib = require.resolve('kerberos/lib/index.js');
const binding = require(join(dirname(lib), '..', 'build', 'Release', 'kerberos.node'));
const NATIVE = Symbol.for('kerberos-once.native-methods');
if (!binding[NATIVE]) {
  binding[NATIVE] = {
    server: { step: binding.KerberosServer.prototype.step },
    client: {
      step: binding.KerberosClient.prototype.step,
      wrap: binding.KerberosClient.prototype.wrap,
      unwrap: binding.KerberosClient.prototype.unwrap,
    },
  };
}
Object.assign(binding.KerberosServer.prototype, binding[NATIVE].server);
Object.assign(binding.KerberosClient.prototype, binding[NATIVE].client);
module.exports = require(lib);
