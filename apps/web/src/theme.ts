import { createTheme, localStorageColorSchemeManager } from '@mantine/core';
import { STORAGE_KEYS } from './lib/storage-keys';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  cursorType: 'pointer',
});

/** The colour scheme lives in localStorage 'theme' (no inline script: the server's CSP forbids it). */
export const colorSchemeManager = localStorageColorSchemeManager({ key: STORAGE_KEYS.theme });
