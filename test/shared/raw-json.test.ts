// rawMember: the exact bytes of a member of a JSON object.
import { describe, expect, it } from "vitest";
import { rawMember } from "../../shared/http/raw-json";

describe("rawMember", () => {
  it("returns the member's bytes exactly, whitespace and key order included", () => {
    const envelope = '{ "v":1,  "kind" : "agent-action", "s":"a\\"}b", "n":[1, {"x":"]"}] }';
    const text = `{"project_id":"proj_1", "envelope" : ${envelope}, "tail": true}`;
    expect(rawMember(text, "envelope")).toBe(envelope);
    expect(rawMember(text, "project_id")).toBe('"proj_1"');
    expect(rawMember(text, "tail")).toBe("true");
    expect(rawMember(text, "missing")).toBeUndefined();
    expect(rawMember('{"a":-1.5e3,"b":null}', "a")).toBe("-1.5e3");
    expect(rawMember("[1]", "a")).toBeUndefined();
    expect(rawMember('{"k\\u0065y":{"z":"\\\\"}}', "key")).toBe('{"z":"\\\\"}');
  });
});
