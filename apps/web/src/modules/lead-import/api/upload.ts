import { uploadClientsResultSchema, type UploadClientsResult } from '@brokerage/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import i18n, { currentLanguage } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { readDetail } from '../../../lib/error-detail';
import { clientKeys } from '../../clients/keys';

export interface UploadProgress {
  /** Bytes of the request sent so far, and in all (the multipart body: the file and a few hundred bytes around it). */
  loaded: number;
  total: number;
}

export interface UploadCallbacks {
  onProgress: (progress: UploadProgress) => void;
  /** Every byte is sent: the server is reading the rows now. */
  onSent: () => void;
}

/**
 * POST /api/upload-clients with XMLHttpRequest rather than the house fetch client: only XHR reports the bytes sent
 * (upload.onprogress), which the page shows as a real progress bar. Same-origin cookie session and Accept-Language,
 * like lib/api; a refusal becomes an ApiError with the server's detail, a network failure one with code 'network'.
 */
export function sendLeadFile(file: File, callbacks: UploadCallbacks): Promise<UploadClientsResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload-clients');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Accept-Language', currentLanguage());
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) callbacks.onProgress({ loaded: event.loaded, total: event.total });
    };
    xhr.upload.onload = () => callbacks.onSent();
    xhr.onerror = () => reject(new ApiError(0, '', 'network'));
    xhr.onabort = () => reject(new ApiError(0, '', 'aborted'));
    xhr.onload = () => {
      let data: unknown;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        reject(new ApiError(xhr.status, i18n.t('errors.invalidJson'), 'invalid_json'));
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        const record = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
        const code = typeof record.code === 'string' ? record.code : undefined;
        reject(new ApiError(xhr.status, readDetail(record.detail), code));
        return;
      }
      const parsed = uploadClientsResultSchema.safeParse(data);
      if (!parsed.success) {
        console.error('Response of POST /api/upload-clients does not match the contract', parsed.error.issues);
        reject(new ApiError(xhr.status, i18n.t('errors.invalidJson'), 'invalid_json'));
        return;
      }
      resolve(parsed.data);
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** The upload as a mutation; the clients list and its filter options are refetched once leads were created. */
export function useUploadLeadFile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, callbacks }: { file: File; callbacks: UploadCallbacks }) => sendLeadFile(file, callbacks),
    onSuccess: (result) => {
      if (result.clients_created > 0) void queryClient.invalidateQueries({ queryKey: clientKeys.all });
    },
  });
}
