/**
 * spec: Second factor 2 — one-time passcodes are checked behind this abstraction; one provider ships
 * (HttpSecondFactorProvider) and nothing in configuration selects another.
 */
export abstract class SecondFactorProvider {
  /**
   * True when the provider accepts `passcode` for `userName`, false when it refuses it. Throws
   * SecondFactorUnavailable when the provider cannot give an answer (unreachable, timeout, TLS refused,
   * non-2xx, unreadable body).
   */
  abstract verify(userName: string, passcode: string): Promise<boolean>;
}

/** The provider gave no answer. The message never carries the client key or the endpoint's credentials. */
export class SecondFactorUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecondFactorUnavailable';
  }
}
