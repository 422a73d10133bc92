"""The run record as a table a person reads in a terminal (`python -m verification check --format table`)."""

from __future__ import annotations

from verification.types import Candidate, Repair, RunRecord


def format_table(record: RunRecord) -> str:
    """The whole chain, readable: each candidate with its claims (state, severity, best evidence quote)
    and rules, each repair attempt with its outcome, then the terminal state and why."""
    lines = [f"{record.terminal.value} ({record.reason.value})  verifier {record.verifier}  "
             f"constitution {record.constitution or '-'}"]
    for candidate in record.candidates:
        lines.append("")
        lines.extend(_candidate_lines(candidate))
        for repair in (r for r in record.repairs if r.from_ == candidate.id):
            lines.append(_repair_line(repair))
    lines.append("")
    package = record.review_package
    why = [text for text in (package.policy_reason, package.budget_reason) if text] if package else []
    lines.append(f"terminal: {record.terminal.value} {record.reason.value}" + (f": {'; '.join(why)}" if why else ""))
    if record.non_converging_rules:
        lines.append(f"non-converging rules: {', '.join(record.non_converging_rules)}")
    metrics = record.metrics
    lines.append(
        f"metrics: claims {metrics.claims}, unsupported {metrics.unsupported_before} -> {metrics.unsupported_after}, "
        f"supported removed {metrics.supported_removed}, "
        f"repairs {metrics.repairs_accepted}/{metrics.repairs_attempted}, "
        f"verifier calls {metrics.verifier_calls} (+{metrics.cache_hits} cached), model calls {metrics.model_calls}"
    )
    lines.extend(f"note: {note}" for note in record.notes)
    return "\n".join(lines)


def _candidate_lines(candidate: Candidate) -> list[str]:
    made = f"  from {candidate.parent} by {candidate.operation}" if candidate.parent else ""
    lines = [f"candidate {candidate.id}  {candidate.origin.value}{made}  sha256 {candidate.sha256[:12]}",
             f"  text: {_cut(candidate.text, 110)}"]
    rows = [("id", "state", "severity", "claim", "best evidence")]
    for claim in candidate.claims:
        quote = f"[{claim.evidence[0].source_id}] {claim.evidence[0].quote}" if claim.evidence else "-"
        rows.append((claim.id, claim.state.value, claim.severity.value, _cut(claim.text, 48), _cut(quote, 48)))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        lines.append("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    lines.extend(f"  {c.id} sent to the model: {c.escalation}" for c in candidate.claims if c.escalation)
    for verdict in candidate.rule_verdicts:
        mark = {True: "pass", False: "FAIL", None: "not checked"}[verdict.passed]
        lines.append(f"  rule {verdict.rule}: {mark} ({verdict.checked_by}) {_cut(verdict.critique, 70)}".rstrip())
    lines.extend(f"  finding {f.claim} {f.problem}: {_cut(f.evidence, 80)}" for f in candidate.findings)
    return lines


def _repair_line(repair: Repair) -> str:
    targets = ",".join(repair.target_claim_ids) or "rules"
    line = f"repair {repair.from_} -> {repair.to or '-'}  {repair.operation} on {targets}: {repair.outcome}"
    if repair.outcome == "ACCEPTED":
        return line + f" (changed {','.join(repair.changed_claim_ids) or '-'}, blast {repair.surface_blast_radius:.2f})"
    return line + f" because {repair.failure}"


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
