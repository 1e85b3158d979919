// A software WebAuthn authenticator for route tests: real ES256 (P-256) keys in WebCrypto, real attestation objects
// (fmt "none", or "packed" self-attestation) and assertions, CBOR written by the small encoder below (independent
// of the library under test, which decodes it), so the server's checks run on real signatures, origins, RP ID
// hashes, flags and counters. Each knob breaks one thing: another origin or RP ID, no UV, a chosen counter.
import { base64urlnopad } from "@scure/base";

type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** RFC 8949 for the few types WebAuthn uses: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Uint8Array {
  const out: number[] = [];
  const put = (v: Cbor) => {
    if (typeof v === "number") out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) out.push(...head(2, v.length), ...v);
    else {
      out.push(...head(5, v.size));
      for (const [k, item] of v) {
        put(k);
        put(item);
      }
    }
  };
  put(value);
  return Uint8Array.from(out);
}

const b64u = (bytes: Uint8Array) => base64urlnopad.encode(bytes);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const sha256 = async (data: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", data));

/** WebCrypto's ECDSA signature is r‖s; WebAuthn's ES256 is the ASN.1 DER SEQUENCE of two INTEGERs. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.slice(i);
    const body = (trimmed[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed;
    return concat(Uint8Array.of(0x02, body.length), body);
  };
  const seq = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(Uint8Array.of(0x30, seq.length), seq);
}

const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

interface Credential {
  id: Uint8Array;
  keys: CryptoKeyPair;
  counter: number;
  userHandle: string | undefined;
}

/** What a ceremony may be made to do wrong (or differently): one knob per check the server makes. */
export interface Knobs {
  origin?: string;
  rpId?: string;
  /** User verified (PIN, biometrics); default true. */
  uv?: boolean;
  /** User present; default true. */
  up?: boolean;
  /** The signature counter to report (default: the last one plus one). */
  counter?: number;
  /** Answer with this credential (by id) whatever the options allow. */
  credentialId?: string;
  /** Flip a bit of the signature (the assertion's, or a packed attestation's). */
  badSignature?: boolean;
  /** create(): answer with this credential already held (an authenticator that ignored excludeCredentials). */
  reuse?: string;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftAuthenticator {
  readonly credentials = new Map<string, Credential>();

  constructor(
    readonly defaults: { origin: string; rpId: string; fmt?: "none" | "packed"; synced?: boolean } = {
      origin: "http://localhost:8787",
      rpId: "localhost",
    },
  ) {}

  private flags(knobs: Knobs, extra: number): number {
    let flags = extra;
    if (knobs.up !== false) flags |= FLAG.UP;
    if (knobs.uv !== false) flags |= FLAG.UV;
    if (this.defaults.synced) flags |= FLAG.BE | FLAG.BS;
    return flags;
  }

  private clientData(type: string, challenge: string, knobs: Knobs): Uint8Array {
    const origin = knobs.origin ?? this.defaults.origin;
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private async authData(knobs: Knobs, flags: number, counter: number, attested?: Uint8Array): Promise<Uint8Array> {
    const rpIdHash = await sha256(new TextEncoder().encode(knobs.rpId ?? this.defaults.rpId));
    const count = Uint8Array.of((counter >>> 24) & 0xff, (counter >> 16) & 0xff, (counter >> 8) & 0xff, counter & 0xff);
    return concat(rpIdHash, Uint8Array.of(flags), count, attested ?? new Uint8Array());
  }

  private async sign(keys: CryptoKeyPair, data: Uint8Array, bad = false): Promise<Uint8Array> {
    const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, data));
    if (bad) raw[5] = (raw[5] ?? 0) ^ 0x01;
    return derSignature(raw);
  }

  /** navigator.credentials.create(): a new P-256 credential, answered as startRegistration's JSON. */
  async create(options: CreationOptions, knobs: Knobs = {}) {
    const held = knobs.reuse === undefined ? undefined : this.credentials.get(knobs.reuse);
    const keys =
      held?.keys ??
      ((await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
        "sign",
        "verify",
      ])) as CryptoKeyPair);
    const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
    const cose = cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, base64urlnopad.decode(jwk.x as string)],
        [-3, base64urlnopad.decode(jwk.y as string)],
      ]),
    );
    const id = held?.id ?? crypto.getRandomValues(new Uint8Array(32));
    const counter = knobs.counter ?? 0;
    const attested = concat(new Uint8Array(16), Uint8Array.of(0, id.length), id, cose);
    const authData = await this.authData(knobs, this.flags(knobs, FLAG.AT), counter, attested);
    const clientDataJSON = this.clientData("webauthn.create", options.challenge, knobs);
    const attStmt =
      this.defaults.fmt === "packed"
        ? new Map<string, Cbor>([
            ["alg", -7],
            ["sig", await this.sign(keys, concat(authData, await sha256(clientDataJSON)), knobs.badSignature)],
          ])
        : new Map<string, Cbor>();
    const fmt = this.defaults.fmt ?? "none";
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ["fmt", fmt],
        ["attStmt", attStmt],
        ["authData", authData],
      ]),
    );
    this.credentials.set(b64u(id), { id, keys, counter, userHandle: options.user.id });
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: "public-key" as const,
      authenticatorAttachment: "cross-platform" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ["usb"],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by an allowed credential (or, discoverable, the first one held). */
  async get(options: RequestOptions, knobs: Knobs = {}) {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const id =
      knobs.credentialId ?? [...this.credentials.keys()].find((k) => allowed.length === 0 || allowed.includes(k));
    const credential = id === undefined ? undefined : this.credentials.get(id);
    if (!credential || id === undefined) throw new Error("the soft authenticator holds no matching credential");
    credential.counter = knobs.counter ?? credential.counter + 1;
    const authData = await this.authData(knobs, this.flags(knobs, 0), credential.counter);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, knobs);
    const signature = await this.sign(
      credential.keys,
      concat(authData, await sha256(clientDataJSON)),
      knobs.badSignature,
    );
    return {
      id,
      rawId: id,
      type: "public-key" as const,
      authenticatorAttachment: "cross-platform" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(credential.userHandle !== undefined && { userHandle: credential.userHandle }),
      },
    };
  }
}
