/**
 * A throw-away self-signed certificate for a test host name, made with the `openssl` CLI into a
 * temporary directory (nothing is committed, no key lives in the repository).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function selfSignedCert(hostname: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-net-cert-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', keyFile, '-out', certFile, '-days', '2',
        '-subj', `/CN=${hostname}`, '-addext', `subjectAltName=DNS:${hostname}`,
      ],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
