import { Inject, Injectable } from '@nestjs/common';
import { constants, createPrivateKey, createPublicKey, KeyObject, privateDecrypt } from 'node:crypto';
import { PASSWORD_TRANSPORT_SETTINGS, type PasswordTransportSettings } from '@app/config';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** PEM from an environment variable, where line breaks are often written as the two characters \n. */
function pem(value: string): string {
  return value.includes('\\n') ? value.replace(/\\n/g, '\n') : value;
}

/**
 * spec: Password transport hardening 2. With PasswordAsymmetricEncryption the browser sends every password
 * field as base64 RSA-OAEP (SHA-256) ciphertext. A ciphertext that does not decrypt yields null, which the
 * sign-in treats exactly like a wrong password (no distinct error, so no padding oracle).
 */
@Injectable()
export class PasswordTransport {
  private readonly privateKey?: KeyObject;
  readonly publicKeyPem?: string;

  constructor(@Inject(PASSWORD_TRANSPORT_SETTINGS.token) settings: PasswordTransportSettings) {
    if (settings.PasswordAsymmetricEncryption) {
      // Settings validation already refused to start without both keys; a key that does not parse stops here.
      this.privateKey = createPrivateKey(pem(settings.PasswordAsymmetricEncryptionPrivateKey ?? ''));
      this.publicKeyPem = createPublicKey(pem(settings.PasswordAsymmetricEncryptionPublicKey ?? ''))
        .export({ type: 'spki', format: 'pem' })
        .toString();
    }
  }

  get encrypted(): boolean {
    return this.privateKey !== undefined;
  }

  /** The password as the server hashes it: decrypted when RSA transport is on, else as sent. */
  decode(value: string): string | null {
    if (!this.privateKey) return value;
    if (value.length > 8192 || !BASE64.test(value)) return null;
    try {
      return privateDecrypt(
        { key: this.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        Buffer.from(value, 'base64'),
      ).toString('utf8');
    } catch {
      return null;
    }
  }
}
