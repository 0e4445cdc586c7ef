import { webcrypto, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

// pkijs signs through WebCrypto; node's implementation is native and does ECDSA P-256 in
// well under a millisecond, so a CA and a handful of certificates cost nothing at start.
// Node's own crypto can make keys but not X.509 certificates, hence pkijs (pure
// TypeScript, no global polyfills, no system openssl needed).
const engine = new pkijs.CryptoEngine({
  name: 'node',
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- pkijs types it as the DOM's Crypto, which lib ES2023 lacks
  crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'],
});

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
const OID_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const OID_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** A certificate and its private key, both PEM encoded. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** What a leaf certificate identifies: a user (client) and/or a server. */
export interface CertificateSubject {
  /** CN: the Kubernetes user name for client certificates. */
  commonName: string;
  /** O entries: the Kubernetes groups for client certificates. */
  organizations?: readonly string[];
  /** DNS names and IP addresses for server certificates. */
  hosts?: readonly string[];
  usage: 'client' | 'server';
}

/** A throwaway certificate authority, made fresh for each control plane. */
export class CertificateAuthority {
  private constructor(
    private readonly certificate: pkijs.Certificate,
    private readonly privateKey: webcrypto.CryptoKey,
    /** The CA certificate, PEM encoded. */
    readonly certPem: string,
  ) {}

  /** Makes a new self-signed CA valid for a day (tests never outlive it). */
  static async create(commonName = 'kop-testing-ca'): Promise<CertificateAuthority> {
    const keys = await generateKeyPair();
    const certificate = new pkijs.Certificate();
    fillCommon(certificate, commonName, []);
    certificate.issuer = certificate.subject;
    certificate.extensions = [
      basicConstraints(true),
      keyUsage(KEY_USAGE_CERT_SIGN | KEY_USAGE_DIGITAL_SIGNATURE | KEY_USAGE_KEY_ENCIPHERMENT),
    ];
    await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, engine);
    await certificate.sign(keys.privateKey, 'SHA-256', engine);
    return new CertificateAuthority(
      certificate,
      keys.privateKey,
      toPem('CERTIFICATE', certificate.toSchema().toBER(false)),
    );
  }

  /** Issues a leaf certificate signed by this CA. */
  async issue(subject: CertificateSubject): Promise<CertificateAndKey> {
    const keys = await generateKeyPair();
    const certificate = new pkijs.Certificate();
    fillCommon(certificate, subject.commonName, subject.organizations ?? []);
    certificate.issuer = this.certificate.subject;
    const extensions = [
      basicConstraints(false),
      keyUsage(KEY_USAGE_DIGITAL_SIGNATURE | KEY_USAGE_KEY_ENCIPHERMENT),
      extendedKeyUsage(subject.usage === 'server' ? OID_SERVER_AUTH : OID_CLIENT_AUTH),
    ];
    if (subject.hosts && subject.hosts.length > 0) extensions.push(subjectAltNames(subject.hosts));
    certificate.extensions = extensions;
    await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, engine);
    await certificate.sign(this.privateKey, 'SHA-256', engine);
    const pkcs8 = await engine.exportKey('pkcs8', keys.privateKey);
    return {
      certPem: toPem('CERTIFICATE', certificate.toSchema().toBER(false)),
      keyPem: toPem('PRIVATE KEY', pkcs8),
    };
  }
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await engine.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/**
 * A positive serial in minimal DER form, as Go's x509 parser demands: the first byte is
 * 0x01..0x7f, so it is neither negative (top bit) nor padded (leading zero byte).
 */
export function serialNumberBytes(random: Uint8Array): Uint8Array {
  const serial = Uint8Array.from(random);
  serial[0] = 1 + (serial[0]! % 0x7f);
  return serial;
}

function fillCommon(certificate: pkijs.Certificate, commonName: string, organizations: readonly string[]): void {
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serialNumberBytes(randomBytes(16)) });
  certificate.subject = nameOf(commonName, organizations);
  // Backdated a little so clocks that disagree by seconds do not reject a brand new cert.
  const now = Date.now();
  certificate.notBefore.value = new Date(now - 60 * 60 * 1000);
  certificate.notAfter.value = new Date(now + 24 * 60 * 60 * 1000);
}

/**
 * One attribute per RDN (O=..., O=..., CN=...), as openssl and Go write names; pkijs alone
 * would put them all into one multi-valued RDN.
 */
function nameOf(commonName: string, organizations: readonly string[]): pkijs.RelativeDistinguishedNames {
  const attributes = [
    ...organizations.map((organization) => ({ type: OID_ORGANIZATION, value: organization })),
    { type: OID_COMMON_NAME, value: commonName },
  ];
  const sequence = new asn1js.Sequence({
    value: attributes.map(
      ({ type, value }) =>
        new asn1js.Set({
          value: [new pkijs.AttributeTypeAndValue({ type, value: new asn1js.Utf8String({ value }) }).toSchema()],
        }),
    ),
  });
  return new pkijs.RelativeDistinguishedNames({ schema: asn1js.fromBER(sequence.toBER(false)).result });
}

function basicConstraints(isCA: boolean): pkijs.Extension {
  return new pkijs.Extension({
    extnID: pkijs.id_BasicConstraints,
    critical: true,
    extnValue: new pkijs.BasicConstraints({ cA: isCA }).toSchema().toBER(false),
  });
}

const KEY_USAGE_DIGITAL_SIGNATURE = 0x80;
const KEY_USAGE_KEY_ENCIPHERMENT = 0x20;
const KEY_USAGE_CERT_SIGN = 0x04;

function keyUsage(bits: number): pkijs.Extension {
  // A one-byte BIT STRING; the leading 0 byte counts unused bits (none that matter here).
  const value = new asn1js.BitString({ valueHex: new Uint8Array([bits]).buffer, unusedBits: 0 });
  return new pkijs.Extension({ extnID: pkijs.id_KeyUsage, critical: true, extnValue: value.toBER(false) });
}

function extendedKeyUsage(oid: string): pkijs.Extension {
  return new pkijs.Extension({
    extnID: pkijs.id_ExtKeyUsage,
    extnValue: new pkijs.ExtKeyUsage({ keyPurposes: [oid] }).toSchema().toBER(false),
  });
}

function subjectAltNames(hosts: readonly string[]): pkijs.Extension {
  const names = hosts.map((host) => {
    const family = isIP(host);
    if (family === 0) return new pkijs.GeneralName({ type: 2, value: host });
    return new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipBytes(host, family) }) });
  });
  return new pkijs.Extension({
    extnID: pkijs.id_SubjectAltName,
    extnValue: new pkijs.GeneralNames({ names }).toSchema().toBER(false),
  });
}

function ipBytes(address: string, family: number): ArrayBuffer {
  if (family === 4) return new Uint8Array(address.split('.').map(Number)).buffer;
  // Expand "::" then write eight 16-bit groups.
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes.buffer;
}

function toPem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
