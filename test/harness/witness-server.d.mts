// Types for witness-server.mjs.
export interface Witness {
  name: string;
  /** C2SP vkey: `<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 public key)>`. */
  vkey: string;
  /** The submission prefix: POST `${url}/add-checkpoint`. */
  url: string;
  trust(log: { origin: string; vkey: string } | { prefix: string; public_key: string }): void;
  setDown(mode: "reset" | "hang" | undefined, origin?: string): void;
  stateOf(origin: string): { size: number; root: Uint8Array } | undefined;
  requests: { origin?: string; old?: number; size?: number; status: number }[];
  close(): Promise<void>;
}
export function startWitness(options?: {
  name?: string;
  port?: number;
  host?: string;
  unref?: boolean;
}): Promise<Witness>;
