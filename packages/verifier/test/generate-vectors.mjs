// Writes test/vectors.json: known answers computed with node:crypto alone (not with the verifier's code), so the
// verifier's WebCrypto hashing is checked against an independent implementation. Run once: node generate-vectors.mjs
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const leafText = 'v1\nEURUSD\n1\n1767225600000\n1.08520';
const leafBytes = Buffer.from(leafText, 'utf8');
const leafHash = sha256(Buffer.of(0), leafBytes);

// Leaves of a small log, for the roots of trees of sizes 0..8 (RFC 6962 MTH).
const leaves = Array.from({ length: 8 }, (_, i) =>
  sha256(Buffer.of(0), Buffer.from(`v1\nEURUSD\n${i + 1}\n${1767225600000 + i * 250}\n1.0852${i}`, 'utf8')),
);
const mth = (d) => {
  if (d.length === 0) return sha256();
  if (d.length === 1) return d[0];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return sha256(Buffer.of(1), mth(d.slice(0, k)), mth(d.slice(k)));
};

const head = { tree_size: 8, time_ms: 1767225605000, root: mth(leaves).toString('hex') };
const input = Buffer.alloc(50);
input[0] = 0;
input[1] = 1;
input.writeBigUInt64BE(BigInt(head.time_ms), 2);
input.writeBigUInt64BE(BigInt(head.tree_size), 10);
Buffer.from(head.root, 'hex').copy(input, 18);
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicKeyHex = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('hex');

const vectors = {
  leaf_example: { text: leafText, bytes: leafBytes.toString('hex'), leaf_hash: leafHash.toString('hex') },
  empty_root: sha256().toString('hex'),
  node_example: {
    left: leaves[0].toString('hex'),
    right: leaves[1].toString('hex'),
    node_hash: sha256(Buffer.of(1), leaves[0], leaves[1]).toString('hex'),
  },
  tree: {
    leaves: Array.from({ length: 8 }, (_, i) => ({
      symbol: 'EURUSD',
      seq: i + 1,
      time_ms: 1767225600000 + i * 250,
      price: `1.0852${i}`,
    })),
    roots: Array.from({ length: 9 }, (_, n) => mth(leaves.slice(0, n)).toString('hex')),
  },
  head_example: {
    head: { ...head, signature: sign(null, input, privateKey).toString('hex') },
    signature_input: input.toString('hex'),
    public_key: publicKeyHex,
    key_id: sha256(Buffer.from(publicKeyHex, 'hex')).toString('hex').slice(0, 16),
  },
};
writeFileSync(new URL('./vectors.json', import.meta.url), `${JSON.stringify(vectors, null, 2)}\n`);
