// Types for oidc-rp.mjs.
export function startRelyingParty(options: { authority: string }): Promise<{
  origin: string;
  setClient(clientId: string): void;
  close(): Promise<void>;
}>;
