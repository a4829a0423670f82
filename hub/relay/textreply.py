"""The text fallback of a question: numbered options out, replies such as "1", "approve", "拒绝" back in."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

YES = {"approve", "approved", "yes", "y", "ok", "okay", "accept", "lgtm", "同意", "批准", "好", "好的", "是", "可以",
       "通过", "确认", "行"}
NO = {"reject", "rejected", "no", "n", "deny", "refuse", "拒绝", "不同意", "否", "不", "驳回", "不行", "不可以"}
DECLINE = {"decline", "skip", "pass", "跳过", "放弃", "不回答"}
CHANGES = {"changes", "request changes", "request_changes", "修改", "需要修改", "要修改"}
_REF = re.compile(r"^#\s*(\d+)\s*[:：,，]?\s*(.*)$", re.S)
_NUMBERS = re.compile(r"^\d+(\s*[,，、\s]\s*\d+)*$")


@dataclass(frozen=True)
class Reply:
    """What a text meant: an interaction response, or why it could not be read."""

    response: dict[str, Any] | None = None
    problem: str | None = None     # set when the text is not an answer to this question


def normalize(text: str) -> str:
    """Full-width digits and punctuation folded (NFKC), case folded, outer space and end punctuation dropped."""
    return unicodedata.normalize("NFKC", text).strip().strip("。.!！").strip().casefold()


def split_reference(text: str) -> tuple[int | None, str]:
    """'#3 approve' → (3, 'approve'); text without a #number → (None, text)."""
    match = _REF.match(unicodedata.normalize("NFKC", text).strip())
    return (int(match[1]), match[2]) if match else (None, text)


def _first_word(text: str) -> tuple[str, str]:
    head, _, rest = text.partition(" ")
    return head, rest.strip()


def _option_by_word(options: list[dict[str, Any]], word: str) -> dict[str, Any] | None:
    for option in options:
        if word in (normalize(option["id"]), normalize(option["label"])):
            return option
    return None


def parse(spec: dict[str, Any], text: str) -> Reply:
    """Read `text` as the answer to the interaction `spec` (hub/domain/interactions.py checks it again)."""
    kind = spec["type"]
    options: list[dict[str, Any]] = spec.get("options", [])
    said = normalize(text)
    if not said:
        return Reply(problem="empty")
    if kind == "input":
        if said in DECLINE:
            return Reply({"declined": True})
        return Reply({"text": text.strip()})
    whole = said
    head, comment = _first_word(said)
    extra = {"comment": text.strip().partition(" ")[2].strip()} if comment else {}
    if whole in DECLINE or head in DECLINE:
        return Reply({"declined": True, **extra})
    if kind == "review":
        if whole in YES or head in YES or head == "1":
            return Reply({"decision": "approve", **extra})
        if whole in CHANGES or head in CHANGES or head == "2" or whole in NO or head in NO:
            return Reply({"decision": "request_changes", **extra})
        return Reply(problem="not_understood")
    if kind == "choice" and spec.get("multiple") and _NUMBERS.match(whole):
        numbers = [int(n) for n in re.findall(r"\d+", whole)]
        if any(not 1 <= n <= len(options) for n in numbers) or len(set(numbers)) != len(numbers):
            return Reply(problem="out_of_range")
        return Reply({"optionIds": [options[n - 1]["id"] for n in numbers]})
    if head.isdigit():
        number = int(head)
        if not 1 <= number <= len(options):
            return Reply(problem="out_of_range")
        option = options[number - 1]
        return Reply({"optionIds": [option["id"]]} if spec.get("multiple") else {"optionId": option["id"], **extra})
    option = _option_by_word(options, whole) or _option_by_word(options, head)
    if option is None and kind == "approval":
        approve = next((o for o in options if o["id"] == "approve"), None) or next(
            (o for o in options if o["id"] != "reject" and o.get("style") != "danger"), None)
        reject = next((o for o in options if o["id"] == "reject"), None) or next(
            (o for o in options if o.get("style") == "danger"), None)
        if whole in YES or head in YES:
            option = approve
        elif whole in NO or head in NO:
            option = reject
    if option is None:
        return Reply(problem="not_understood")
    if spec.get("multiple"):
        return Reply({"optionIds": [option["id"]]})
    return Reply({"optionId": option["id"], **(extra if option is not _option_by_word(options, whole) else {})})


def how_to_answer(spec: dict[str, Any], number: int, several_open: bool) -> str:
    """The line that tells the person what to reply."""
    prefix = f"#{number} " if several_open else ""
    kind = spec["type"]
    if kind == "input":
        fmt = spec.get("format", "text")
        what = "your answer" if fmt == "text" else f"your answer ({fmt})"
        return f"Reply {prefix}with {what}, or {prefix}skip to decline. / 直接回复答案，回复 跳过 表示不答。"
    if kind == "review":
        return f"Reply {prefix}1 to approve or {prefix}2 to request changes. / 回复 1 通过，2 需要修改。"
    if spec.get("multiple"):
        return f"Reply {prefix}with the numbers, e.g. {prefix}1,3. / 回复编号，如 1,3。"
    return f"Reply {prefix}with a number (1–{len(spec.get('options', []))}). / 回复编号。"


def render_question(spec: dict[str, Any], number: int, several_open: bool) -> str:
    lines = [f"❓ #{number} {spec['title']}"]
    if spec.get("description"):
        lines.append(str(spec["description"]))
    if spec.get("impact"):
        lines.append(f"Impact: {spec['impact']}")
    if spec.get("risk") == "high":
        lines.append("Risk: high / 高风险")
    if spec["type"] == "review" and spec.get("content"):
        content = str(spec["content"])
        lines.append(content if len(content) <= 1500 else content[:1500] + " …")
    if spec["type"] == "review":
        lines += ["1. Approve / 通过", "2. Request changes / 需要修改"]
    for index, option in enumerate(spec.get("options", []), start=1):
        mark = " (recommended)" if option.get("recommended") else ""
        lines.append(f"{index}. {option['label']}{mark}")
    lines.append(how_to_answer(spec, number, several_open))
    return "\n".join(lines)


def describe_answer(spec: dict[str, Any], response: dict[str, Any] | None, outcome: str) -> str:
    """A short human form of a stored answer, for the confirmation."""
    if outcome in ("expired", "cancelled"):
        return {"expired": "expired / 已过期", "cancelled": "cancelled / 已取消"}[outcome]
    if not response or response.get("declined"):
        return "declined / 已拒绝回答"
    labels = {o["id"]: o["label"] for o in spec.get("options", [])}
    if "optionId" in response:
        return str(labels.get(response["optionId"], response["optionId"]))
    if "optionIds" in response:
        return ", ".join(str(labels.get(i, i)) for i in response["optionIds"])
    if "decision" in response:
        return "Approve / 通过" if response["decision"] == "approve" else "Request changes / 需要修改"
    if "text" in response:
        return f"“{response['text']}”"
    return outcome
