import { describe, expect, it } from 'vitest';
import * as asn1js from 'asn1js';
import { serialNumberBytes } from '../../src/testing/certificates.js';

// Go's x509 parser rejects a certificate whose serial is negative or not minimally encoded
// ("x509: malformed serial number"); kube-apiserver then refuses to start.
describe('certificate serial numbers', () => {
  it('are positive and minimally encoded for every possible first byte', () => {
    for (let first = 0; first < 256; first++) {
      const random = new Uint8Array(16).fill(0);
      random[0] = first;
      const serial = serialNumberBytes(random);
      expect(serial[0]).toBeGreaterThanOrEqual(0x01);
      expect(serial[0]).toBeLessThanOrEqual(0x7f);
      const der = new Uint8Array(new asn1js.Integer({ valueHex: serial }).toBER(false));
      // tag 0x02, length 16, then the 16 bytes unchanged: no padding byte was needed.
      expect(Array.from(der.slice(0, 2))).toEqual([0x02, 16]);
      expect(Array.from(der.slice(2))).toEqual(Array.from(serial));
    }
  });

  it('keeps the rest of the random bytes', () => {
    const random = Uint8Array.from({ length: 16 }, (_, i) => i * 7 + 3);
    expect(Array.from(serialNumberBytes(random).slice(1))).toEqual(Array.from(random.slice(1)));
  });
});
