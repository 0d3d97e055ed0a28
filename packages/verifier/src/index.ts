/**
 * @brokerage/verifier: checks a trade proof of decisions.md D27 with nothing but the file and a public key. The CLI
 * (`brokerage-verify`) and the web's /verify page both call verifyFile; the lower-level functions are exported for
 * tests and for anyone who wants to check a single hash or proof.
 */
export { verifyFile, verifyProof, formatReason } from './verify.js';
export type { Lang, Step, StepId, Verdict, VerifyOptions } from './verify.js';
export { parseHead, readConsistency, readProof, instantMs } from './format.js';
export type { ConsistencyProof, ProofDocument, ProofTrade, Tick } from './format.js';
export {
  headSignatureInput,
  keyIdOf,
  leafBytes,
  leafHash,
  nodeHash,
  verifyConsistency,
  verifyHeadSignature,
  verifyInclusion,
} from './merkle.js';
export type { Head, LeafInput } from './merkle.js';
export { compareDecimal, isDecimal } from './decimal.js';
export { amountsFor, decide, RULE_GAP_SECONDS, RULE_VERSION } from './rule.js';
export type { Amounts, Direction, RuleDecision, RuleInput, RuleStatus, Status } from './rule.js';
export { fromHex, toHex } from './bytes.js';
