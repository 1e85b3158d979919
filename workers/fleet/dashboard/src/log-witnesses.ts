// The log's witnesses, on the audit screen (issue 48; docs/log.md "Witnesses"): for each witness the deployment
// lists, the size of the project's log it last cosigned and, plainly, why it has not cosigned the current
// checkpoint when it has not: a refusal that is a fork or rollback signal says both sizes. Route: GET
// /api/log/witnesses?project_id.
import { api, query } from "./api";
import { table } from "./forms";
import { notice } from "./notice";
import type { ScreenContext } from "./types";
import { h, section } from "./ui";
import { type WitnessView, witnessStatus } from "./witness-status";

interface Witnesses {
  size: number;
  configuration_error: string | null;
  witnesses: WitnessView[];
}

/** The section, loaded now; empty when the deployment lists no witnesses and its list is well formed. */
export async function witnessSection(ctx: ScreenContext): Promise<HTMLElement> {
  const box = h("div", { id: "log-witnesses" });
  const out = notice();
  const result = await api<Witnesses>("GET", `/api/log/witnesses${query({ project_id: ctx.project.id })}`);
  if (!out.check(result) || !result.ok) box.replaceChildren(out);
  else {
    const { size, configuration_error, witnesses } = result.data;
    box.replaceChildren(
      h(
        "p",
        { class: "hint" },
        `The log holds ${size} entries. Independent witnesses cosign a checkpoint only if it extends the last one ` +
          "they cosigned, so the log cannot show two histories unseen.",
      ),
      configuration_error
        ? h(
            "p",
            { class: "notice error", role: "alert" },
            `The fleet's witness list is malformed: ${configuration_error}`,
          )
        : "",
      table<WitnessView>(
        "Witnesses",
        [
          { label: "Witness", cell: (w) => h("code", { title: w.vkey }, w.name) },
          { label: "Last cosigned size", cell: (w) => (w.cosigned_size === null ? "—" : String(w.cosigned_size)) },
          { label: "Status", cell: (w) => witnessStatus(w, size) },
        ],
        witnesses,
        "This fleet lists no witnesses (LOG_WITNESSES).",
      ),
    );
  }
  return section("Transparency log witnesses", box);
}
