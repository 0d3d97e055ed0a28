import { testConnectionResponseSchema, type TestConnection } from '@brokerage/shared';
import { useMutation } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

/** POST /api/integration/test-connection: the server calls the partner's URL; nothing is stored. */
export function useTestConnection() {
  return useMutation({
    mutationFn: (body: TestConnection) =>
      apiCall(testConnectionResponseSchema, '/api/integration/test-connection', { method: 'POST', body }),
  });
}
