import type { StepId, Verdict } from '@brokerage/verifier';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ApiError } from '../../../lib/api';
import { fetchConsistency, priceLogHeadSchema, priceProofKeys, type Consistency, type PriceLogHead } from './price-log';

/**
 * The '/verify' page's work (issue 30 §3): the files the client chose are read and checked here, in the browser, by
 * the same package the command line runs (@brokerage/verifier, WebCrypto); nothing is uploaded. Only a consistency
 * proof between the client's saved head and the proof's head is asked of the server, and it proves itself.
 */

/** A file the client chose: its JSON, or why it could not be used. `token` tells two choices of one file apart. */
export type ChosenFile =
  | { name: string; token: number; json: unknown }
  | { name: string; token: number; error: 'unreadable' | 'too_large' | 'not_head' };

/** A period's bundle of 1,000 proofs is a few megabytes; far more than that is not a proof file. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

let nextToken = 1;

/** Reads a chosen proof file as JSON. */
export async function readProofFile(file: File): Promise<ChosenFile> {
  const token = nextToken++;
  if (file.size > MAX_FILE_BYTES) return { name: file.name, token, error: 'too_large' };
  const parsed = parseJson(await file.text());
  return parsed.ok ? { name: file.name, token, json: parsed.json } : { name: file.name, token, error: 'unreadable' };
}

/** Reads a saved head file: the head as the page saves it, or any JSON with that head under `head`. */
export async function readHeadFile(file: File): Promise<ChosenFile> {
  const token = nextToken++;
  if (file.size > MAX_FILE_BYTES) return { name: file.name, token, error: 'too_large' };
  const parsed = parseJson(await file.text());
  if (!parsed.ok) return { name: file.name, token, error: 'unreadable' };
  const head = savedHeadOf(parsed.json);
  return head ? { name: file.name, token, json: head } : { name: file.name, token, error: 'not_head' };
}

export function parseJson(text: string): { ok: true; json: unknown } | { ok: false } {
  try {
    return { ok: true, json: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch {
    return { ok: false };
  }
}

export function savedHeadOf(json: unknown): PriceLogHead | null {
  const direct = priceLogHeadSchema.safeParse(json);
  if (direct.success) return direct.data;
  const nested = priceLogHeadSchema.safeParse((json as { head?: unknown } | null)?.head);
  return nested.success ? nested.data : null;
}

/** The verifier speaks Russian and English; Kazakh readers get its Russian texts (the page's own texts are in kk). */
export function verifierLanguage(lang: string): 'ru' | 'en' {
  return lang === 'en' ? 'en' : 'ru';
}

/** The proof documents of a file: the document itself, or a bundle's `proofs`. */
export function proofDocuments(json: unknown): unknown[] {
  const proofs = (json as { proofs?: unknown } | null)?.proofs;
  return Array.isArray(proofs) ? proofs : [json];
}

/** The tree size of the head a proof document is checked against, when it has one. */
export function proofHeadSize(doc: unknown): number | null {
  const size = (doc as { head?: { tree_size?: unknown } } | null)?.head?.tree_size;
  return typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null;
}

/** The consistency call for a saved head and a proof's head: the older (smaller) tree first, as RFC 6962 asks. */
export function consistencySizes(saved: number, proof: number): { first: number; second: number } {
  return saved <= proof ? { first: saved, second: proof } : { first: proof, second: saved };
}

export type StepState = 'passed' | 'failed' | 'skipped';
export function stepState(ok: boolean | null): StepState {
  return ok === true ? 'passed' : ok === false ? 'failed' : 'skipped';
}

/** The page's verdict on a whole file: passed only when it holds at least one proof and every one passed. */
export function overallVerdict(verdicts: readonly Verdict[]): 'passed' | 'failed' | 'empty' {
  if (verdicts.length === 0) return 'empty';
  return verdicts.every((v) => v.ok) ? 'passed' : 'failed';
}

export interface VerificationRun {
  verdicts: Verdict[];
  /** The server's refusal of a consistency proof (e.g. the saved head is not one it published), per proof head size. */
  consistencyRefusals: { size: number; detail: string }[];
}

/**
 * Verifies a proof file (one proof or a period's bundle) with the verifier package. With a saved head, each proof head
 * of another size needs the consistency proof between it and the saved one (the verifier picks each proof's own).
 */
export async function verifyChosen(
  proofJson: unknown,
  savedHead: PriceLogHead | null,
  lang: 'ru' | 'en',
  queryClient: QueryClient,
): Promise<VerificationRun> {
  const { verifyFile } = await import('@brokerage/verifier');
  if (!savedHead) return { verdicts: await verifyFile(proofJson, { lang }), consistencyRefusals: [] };

  const sizes = new Set(proofDocuments(proofJson).map(proofHeadSize));
  const consistency: Consistency[] = [];
  const consistencyRefusals: VerificationRun['consistencyRefusals'] = [];
  await Promise.all(
    [...sizes].map(async (size) => {
      // The same size needs no proof: the verifier compares the roots.
      if (size === null || size === savedHead.tree_size) return;
      const { first, second } = consistencySizes(savedHead.tree_size, size);
      try {
        consistency.push(
          await queryClient.fetchQuery({
            queryKey: priceProofKeys.consistency(first, second),
            queryFn: () => fetchConsistency(first, second),
            staleTime: Infinity,
            retry: false,
          }),
        );
      } catch (error) {
        consistencyRefusals.push({ size, detail: error instanceof ApiError ? error.detail : '' });
      }
    }),
  );
  consistencyRefusals.sort((a, b) => a.size - b.size);
  return { verdicts: await verifyFile(proofJson, { lang, savedHead, consistency }), consistencyRefusals };
}

/** The verification of the chosen files, run again when the page's language changes (the verifier's texts follow). */
export function useVerification(proof: ChosenFile | null, saved: ChosenFile | null, lang: 'ru' | 'en') {
  const proofJson = proof && 'json' in proof ? proof.json : undefined;
  const savedHead = saved && 'json' in saved ? (saved.json as PriceLogHead) : null;
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: priceProofKeys.verdicts(proof?.token ?? 0, savedHead ? saved!.token : 0, lang),
    queryFn: () => verifyChosen(proofJson, savedHead, lang, queryClient),
    enabled: proofJson !== undefined,
    staleTime: Infinity,
    retry: false,
  });
}

export type { StepId, Verdict };
