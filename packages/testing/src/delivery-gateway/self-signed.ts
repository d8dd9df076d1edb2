import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '../temp-dir';

export interface Certificate {
  /** PEM private key. */
  key: string;
  /** PEM certificate, self-signed: a client trusts it by passing it as its CA. */
  cert: string;
}

let made: Promise<Certificate> | undefined;

/**
 * A self-signed certificate for 127.0.0.1 and localhost (EC P-256, valid two
 * days), made once per test process with the openssl binary: the local
 * HTTP/2 push servers serve TLS with it, as FCM and APNs only speak HTTP/2
 * over TLS.
 */
export function selfSignedCertificate(): Promise<Certificate> {
  made ??= (async () => {
    const dir = await makeTempDir('herald-cert-');
    try {
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir.path, 'key.pem'),
        '-out',
        join(dir.path, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ]);
      return {
        key: await readFile(join(dir.path, 'key.pem'), 'utf8'),
        cert: await readFile(join(dir.path, 'cert.pem'), 'utf8'),
      };
    } finally {
      await dir.remove();
    }
  })();
  return made;
}
