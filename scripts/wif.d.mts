// Types for wif.mjs.
export function generateSigningWif(wif?: string, type?: string): { wif: string; address: string };
