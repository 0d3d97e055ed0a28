import { currentLanguage } from '../i18n';

/** Hands a file to the browser's downloads under `name` (an object URL clicked through a temporary link). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoked later, not at once: some browsers start reading the URL only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Downloads a file the server serves as an attachment (the statement export, a trade's proof, a period's proofs), with
 * the session cookie, under the name of its Content-Disposition (else `fallbackName`). Resolves to null on success, to
 * the server's `detail` on a refusal, and to '' when there is no detail (the caller shows its own text then).
 */
export async function downloadFile(url: string, fallbackName: string): Promise<string | null> {
  let response: Response;
  try {
    response = await fetch(url, {
      credentials: 'same-origin',
      headers: { 'Accept-Language': currentLanguage() },
    });
  } catch {
    return '';
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { detail?: unknown };
    return typeof body.detail === 'string' ? body.detail : '';
  }
  const blob = await response.blob();
  const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
  saveBlob(blob, name ?? fallbackName);
  return null;
}
