import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { hostname } from 'node:os';
import { isIP } from 'node:net';

/** A certificate and its private key, PEM encoded. */
export interface SelfSignedCertificate {
  cert: string;
  key: string;
}

/** Options of {@link createSelfSignedCertificate}. */
export interface SelfSignedCertificateOptions {
  /** DNS names and IP addresses the certificate names; default `localhost`, 127.0.0.1, ::1 and the host name. */
  hosts?: readonly string[];
  /** Common name; default the first host. */
  commonName?: string;
  /** How long it is valid from now; default one year (controller-runtime's self-signed metrics certificate lasts as long). */
  validForMs?: number;
  /** The clock, for tests. */
  now?: Date;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/**
 * Makes a self-signed ECDSA P-256 serving certificate in memory, as controller-runtime's
 * metrics server does when it is given no certificate: the connection is encrypted, and
 * clients that want more pin this certificate or mount a real one (cert-manager).
 * Node can make keys but not X.509 certificates, and the certificate is small enough to
 * encode here (DER, RFC 5280) rather than load an ASN.1 library into every operator.
 */
export function createSelfSignedCertificate(options: SelfSignedCertificateOptions = {}): SelfSignedCertificate {
  const hosts = options.hosts ?? defaultHosts();
  if (hosts.length === 0) throw new TypeError('a self-signed certificate needs at least one host');
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 60 * 60_000); // an hour back: clocks of clients differ
  const notAfter = new Date(now.getTime() + (options.validForMs ?? 365 * 24 * 3_600_000));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = distinguishedName(options.commonName ?? hosts[0]!);
  const signatureAlgorithm = sequence(objectId(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // positive
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    signatureAlgorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        extension(OID.basicConstraints, true, sequence()),
        extension(OID.keyUsage, true, tlv(0x03, Buffer.from([0x07, 0x80]))), // digitalSignature
        extension(OID.extKeyUsage, false, sequence(objectId(OID.serverAuth))),
        extension(OID.subjectAltName, false, sequence(...hosts.map(generalName))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, signatureAlgorithm, bitString(signature));
  return { cert: pem('CERTIFICATE', der), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function defaultHosts(): string[] {
  const host = hostname();
  const hosts = ['localhost', '127.0.0.1', '::1'];
  if (/^[a-zA-Z0-9]([a-zA-Z0-9.-]{0,251}[a-zA-Z0-9])?$/.test(host) && host !== 'localhost') hosts.push(host);
  return hosts;
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
    header = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(header), content]);
}

function sequence(...parts: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(parts));
}

function explicit(tagNumber: number, content: Buffer): Buffer {
  return tlv(0xa0 | tagNumber, content);
}

function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1]! < 0x80) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectId(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const bytes = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const group = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) group.unshift((n & 0x7f) | 0x80);
    bytes.push(...group);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function bitString(content: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
}

function distinguishedName(commonName: string): Buffer {
  return sequence(tlv(0x31, sequence(objectId(OID.commonName), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
}

/** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-05-01T12:00:00.000Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectId(oid), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** A subjectAltName entry: iPAddress [7] for addresses, dNSName [2] otherwise. */
function generalName(host: string): Buffer {
  const family = isIP(host);
  if (family === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (family === 6) return tlv(0x87, ipv6Bytes(host));
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (text: string | undefined) => (text ? text.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const expand = (list: string[]) =>
    list.flatMap((g) =>
      g.includes('.')
        ? (([a, b, c, d]) => [((a! << 8) | b!).toString(16), ((c! << 8) | d!).toString(16)])(g.split('.').map(Number))
        : [g],
    );
  const l = expand(left);
  const r = expand(right);
  const all = tail === undefined ? l : [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  const bytes = Buffer.alloc(16);
  all.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  return bytes;
}
