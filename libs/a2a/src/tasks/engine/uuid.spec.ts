import { newUuid } from './uuid.js';

describe('newUuid', () => {
  it('makes version 4 UUIDs (RFC 9562 variant), lower-case, every one different', () => {
    const ids = Array.from({ length: 3000 }, () => newUuid()); // past several batches of random bytes
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in every free position (the random bytes reach the text)', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let n = 0; n < 2000; n++) [...newUuid()].forEach((c, i) => seen[i].add(c));
    const fixed = new Map([[8, 1], [13, 1], [18, 1], [23, 1], [14, 1], [19, 4]]); // dashes, the version, the variant's 4 digits
    seen.forEach((chars, i) => expect(chars.size).toBe(fixed.get(i) ?? 16));
  });
});
