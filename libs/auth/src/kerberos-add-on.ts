/**
 * The part of the optional `kerberos` add-on this service uses, typed here rather than through the package's
 * own declarations: the add-on builds against MIT Kerberos (libkrb5-dev), `npm ci` drops it on a machine
 * without the headers, and neither the build nor the type check may depend on it being installed.
 */
export interface KerberosServer {
  /** The principal the client proved (`user@REALM`), once the context is complete. */
  readonly username: string;
  /** The acceptor's output token (base64), empty when it has none. */
  readonly response: string;
  readonly contextComplete: boolean;
  step(challenge: string): Promise<string>;
}

export interface KerberosClient {
  readonly response: string;
  readonly contextComplete: boolean;
  step(challenge: string): Promise<string>;
}

export interface KerberosAddOn {
  readonly GSS_MECH_OID_SPNEGO: number;
  initializeServer(service: string): Promise<KerberosServer>;
  initializeClient(service: string, options?: { mechOID?: number }): Promise<KerberosClient>;
}

/** A variable, so that the compiler does not resolve the module (it may be absent). */
const ADD_ON = 'kerberos';

/** Why Negotiate cannot run on this machine: names the add-on and the package it builds against. */
export const KERBEROS_MISSING =
  'NegotiateAuthentication=True needs the kerberos add-on, which is not installed or does not load ' +
  '(it builds against MIT Kerberos: install libkrb5-dev, then run npm ci)';

/** Loads the add-on once it is needed (Negotiate switched on); throws a message naming what is missing. */
export async function loadKerberos(): Promise<KerberosAddOn> {
  try {
    return (await import(ADD_ON)) as KerberosAddOn;
  } catch (err) {
    throw new Error(`${KERBEROS_MISSING}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
