// What a person reads: the sentence for each reason from GET /api/reasons (the one error table), never the code;
// shown in the message line beside the form that failed. A later success clears every earlier error on the page.

const UNKNOWN = "Something went wrong. Try again.";
const OFFLINE = "We could not reach the server. Check your connection and try again.";

let sentences: Promise<Map<string, string>> | undefined;

interface ReasonList {
  reasons?: { reason: string; message: string }[];
}

/** The reason → sentence table, fetched once; an empty table (every failure reads as UNKNOWN) if it cannot be. */
export function loadSentences(): Promise<Map<string, string>> {
  sentences ??= fetch("/api/reasons")
    .then((res) => (res.ok ? (res.json() as Promise<ReasonList>) : {}))
    .then((list: ReasonList) => new Map((list.reasons ?? []).map((entry) => [entry.reason, entry.message])))
    .catch(() => new Map<string, string>());
  return sentences;
}

/** The sentence for a failure; `status` 0 means the request never got an answer. */
export async function sentenceFor(failure: { status?: number; reason: string | undefined }): Promise<string> {
  if (failure.status === 0) return OFFLINE;
  const sentence = failure.reason === undefined ? undefined : (await loadSentences()).get(failure.reason);
  return sentence ?? UNKNOWN;
}

export function showInfo(line: HTMLElement, text: string): void {
  line.textContent = text;
  line.classList.remove("error");
}

export function showError(line: HTMLElement, text: string): void {
  line.textContent = text;
  line.classList.add("error");
}

/** After a success, no earlier error stays on the page. */
export function clearErrors(): void {
  for (const line of document.querySelectorAll<HTMLElement>(".msg.error")) showInfo(line, "");
}
