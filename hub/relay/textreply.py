"""The text fallback of a question: numbered options out; only explicit replies ("1", "#2 approve") back in.

An approval that carries what it approves (a command, a file change, a tool's input, a commit) shows it, whole when it
fits a message, and is approved only in the app; here it can be rejected (hub/notify/outside.py, docs/relay.md). A
review shows its content whole, hidden characters marked, when it fits a message; one that does not is approved only
in the app, and changes can still be requested here.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from hub.domain.approvals import stored_items
from hub.domain.visible import mark
from hub.notify.outside import approves, carries_items, decline_button, remembers

CONFIRM_WINDOW_S = 300  # a high-risk approval given by text waits this long for "confirm N"
DECLINE = {"skip", "decline", "跳过"}
# Words that name an option besides its id and label: only for the conventional ids, whole replies only.
ALIASES = {"approve": {"approve", "同意", "批准"}, "reject": {"reject", "拒绝"}}
# Words that decline an approval whatever its options are called: its own declining option, else `declined`.
REJECT_WORDS = {"reject", "deny", "拒绝"}
REVIEW_OPTIONS = [{"id": "approve", "label": "Approve", "words": {"approve", "通过"}},
                  {"id": "request_changes", "label": "Request changes",
                   "words": {"changes", "request changes", "request_changes", "修改", "需要修改"}}]
# Matched on the text as typed (\d and \s take full-width digits and spaces too), so an input's answer is kept as is.
_REF = re.compile(r"^[#＃]\s*(\d+)\s*[:：,，]?\s*(.*)$", re.S)       # "#3 approve", "#3 1", "#3: Ada"
_BARE_REF = re.compile(r"^(\d+)\s+(\D.*)$", re.S)                     # "3 approve" (a word, never a number)
_CONFIRM = re.compile(r"^(?:(?:confirm|确认)\s*#?\s*(\d+)|#\s*(\d+)\s*(?:confirm|确认))$")
_NUMBERS = re.compile(r"^\d+(\s*[,，、\s]\s*\d+)*$")


@dataclass(frozen=True)
class Reply:
    """What a text meant: an interaction response, or why it could not be read."""

    response: dict[str, Any] | None = None
    problem: str | None = None     # set when the text is not an answer to this question


@dataclass(frozen=True)
class Form:
    """The shape of a text before any question is looked at (see `read`)."""

    confirm: int | None = None     # "confirm 3": the second step of a high-risk approval
    number: int | None = None      # the question a reference names
    rest: str = ""                 # what follows the reference
    explicit: bool = False         # "#3 …" (always a reference) rather than "3 word" (one only if the word fits)


def normalize(text: str) -> str:
    """Full-width digits and punctuation folded (NFKC), case folded, outer space and end punctuation dropped."""
    return unicodedata.normalize("NFKC", text).strip().strip("。.!！").strip().casefold()


def split_reference(text: str) -> tuple[int | None, str]:
    """'#3 approve' → (3, 'approve'); text without a #number → (None, text)."""
    match = _REF.match(text.strip())
    return (int(match[1]), match[2]) if match else (None, text)


def read(text: str) -> Form:
    """A confirmation, a reference to a question ("#3 …", or "3 approve"), or plain text (number None)."""
    folded = normalize(text)
    confirm = _CONFIRM.match(folded)
    if confirm:
        return Form(confirm=int(confirm[1] or confirm[2]))
    number, rest = split_reference(text)
    if number is not None:
        return Form(number=number, rest=rest, explicit=True)
    bare = _BARE_REF.match(text.strip())
    if bare:
        return Form(number=int(bare[1]), rest=bare[2])
    return Form(rest=text)


def options_of(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The options a reply chooses among, numbered from 1 (a review has two fixed ones)."""
    return REVIEW_OPTIONS if spec["type"] == "review" else list(spec.get("options", []))


def _words(option: dict[str, Any]) -> set[str]:
    words = {normalize(str(option["id"])), normalize(str(option.get("label", "")))} | set(option.get("words", ()))
    return (words | ALIASES.get(str(option["id"]), set())) - {""}


def _option_by_word(options: list[dict[str, Any]], word: str) -> dict[str, Any] | None:
    """The one option that `word` names exactly; None when none does, or when several do (ambiguous)."""
    found = [o for o in options if word in _words(o)]
    return found[0] if len(found) == 1 else None


def parse(spec: dict[str, Any], text: str) -> Reply:
    """Read `text`, as a whole, as the answer to the interaction `spec` (hub/domain/interactions.py checks it
    again). Only an explicit reply answers: an option's number, its exact id or label (or, for the conventional
    approve/reject ids, 同意/批准/拒绝), numbers for a multiple choice, or skip. "ok thanks", "yes but not now",
    "no way… actually wait" are not answers: nothing is read from the first word of a sentence."""
    kind = spec["type"]
    said = normalize(text)
    if not said:
        return Reply(problem="empty")
    if said in DECLINE:
        return Reply({"declined": True})
    if kind == "input":
        return Reply({"text": text.strip()})
    options = options_of(spec)
    multiple = kind == "choice" and bool(spec.get("multiple"))
    if _NUMBERS.match(said):
        numbers = [int(n) for n in re.findall(r"\d+", said)]
        if len(numbers) > 1 and not multiple:
            return Reply(problem="not_understood")
        if any(not 1 <= n <= len(options) for n in numbers) or len(set(numbers)) != len(numbers):
            return Reply(problem="out_of_range")
        chosen = [options[n - 1] for n in numbers]
    else:
        option = _option_by_word(options, said)
        if option is None and kind == "approval" and said in REJECT_WORDS:
            return Reply(decline_button(spec)["response"])  # "reject" declines, whatever the option is called
        if option is None:
            return Reply(problem="not_understood")
        chosen = [option]
    if kind == "review":
        if not_by_text(spec, {"decision": chosen[0]["id"]}):
            return Reply(problem="in_the_app")
        return Reply({"decision": chosen[0]["id"]})
    if multiple:
        return Reply({"optionIds": [o["id"] for o in chosen]})
    if not_by_text(spec, {"optionId": chosen[0]["id"]}):
        return Reply(problem="in_the_app")
    return Reply({"optionId": chosen[0]["id"]})


def answers(reply: Reply) -> bool:
    """Whether a reply was meant as an answer: one, or a yes that is given only in the app (said so, not chatted)."""
    return reply.response is not None or reply.problem == "in_the_app"


def is_approving(spec: dict[str, Any], response: dict[str, Any]) -> bool:
    """An approval's answer that approves: what hub/domain/interactions.py and the app call it (anything but `reject`,
    a danger option or `declined`; an answer the approval would refuse counts as a yes)."""
    return spec["type"] == "approval" and approves(spec, response)


def not_by_text(spec: dict[str, Any], response: dict[str, Any]) -> bool:
    """A yes to an approval that carries what it approves, or to a review too long for a message: given only in the
    app, where all of it is shown."""
    if spec.get("type") == "review":
        return response.get("decision") == "approve" and review_text(spec) is None
    return (only_in_the_app(spec) or _remembers(spec, response)) and is_approving(spec, response)


def _remembers(spec: dict[str, Any], response: dict[str, Any]) -> bool:
    """An "always" or "for this session" option (hub/notify/outside.py `remembers`): chosen in the app, where what it
    allows is said; IM text shows only labels."""
    option = next((o for o in spec.get("options", []) if o.get("id") == response.get("optionId")), None)
    return spec.get("type") == "approval" and option is not None and remembers(option)


def needs_confirmation(spec: dict[str, Any], response: dict[str, Any]) -> bool:
    """A high-risk approval being approved: the app asks a second, explicit step
    (docs/design.md#no-approval-by-accident); so does text."""
    return spec.get("risk") == "high" and is_approving(spec, response)


def ask_to_confirm(spec: dict[str, Any], number: int, option_id: str) -> str:
    label = mark(next((o.get("label", o["id"]) for o in spec.get("options", []) if o["id"] == option_id), option_id))
    minutes = CONFIRM_WINDOW_S // 60
    return (f"⚠️ #{number} {title_of(spec)} is high risk. To approve “{label}”, reply “confirm {number}” within "
            f"{minutes} minutes. / 高风险：{minutes} 分钟内回复 “确认 {number}” 才会批准。")


def how_to_answer(spec: dict[str, Any], number: int, several_open: bool) -> str:
    """The line that tells the person exactly what to reply."""
    prefix = f"#{number} " if several_open else ""
    kind = spec["type"]
    if kind == "input":  # free text is an answer only with its number: anything else stays a chat message
        return (f"Reply “#{number} your answer”, or “#{number} skip” to decline. "
                f"/ 回复 “#{number} 答案”，或 “#{number} 跳过” 表示不答。")
    if kind == "review" and review_text(spec) is None:
        return (f"Open LineUp to read it and approve; here you can request changes: reply #{number} changes. "
                f"/ 请在 LineUp 中阅读全文后通过；在此可要求修改：回复 #{number} 修改。")
    if kind == "review":
        return (f"Reply {prefix}1 or {prefix}approve to approve, {prefix}2 or {prefix}changes to request "
                f"changes. / 回复 {prefix}1 通过，{prefix}2 需要修改。")
    options = spec.get("options", [])
    by_text = [o for o in options if is_approving(spec, {"optionId": o["id"]})
               and not not_by_text(spec, {"optionId": o["id"]})]
    if only_in_the_app(spec) or (kind == "approval" and options and not by_text):
        return (f"Open LineUp to approve; here you can reject: reply #{number} reject. "
                f"/ 请在 LineUp 中批准；在此可拒绝：回复 #{number} 拒绝。")
    if spec.get("multiple"):
        return f"Reply {prefix}with the numbers, e.g. {prefix}1,3. / 回复编号，如 {prefix}1,3。"
    ids = [o["id"] for o in options]
    if kind == "approval" and "approve" in ids and "reject" in ids:
        return (f"Reply {prefix}{ids.index('approve') + 1} or {prefix}approve to approve, "
                f"{prefix}{ids.index('reject') + 1} or {prefix}reject to reject. "
                f"/ 回复 {prefix}{ids.index('approve') + 1} 或 {prefix}同意，"
                f"{prefix}{ids.index('reject') + 1} 或 {prefix}拒绝。")
    return (f"Reply {prefix}with a number (1–{len(options)}) or an option's exact name. "
            f"/ 回复 {prefix}编号或选项名称。")


MAX_APPROVES_IN_TEXT = 3000  # characters of what an approval approves an IM message shows whole; more: none of it
_SPACES = re.compile(r" {16,}")


def _visible(text: str) -> str:
    """Hidden characters marked (`⟨U+2067⟩`), and a long run of spaces counted (`⟨300 spaces⟩`): code pushed far to
    the right of a line cannot pass for a blank."""
    return _SPACES.sub(lambda m: f"⟨{len(m[0])} spaces⟩", mark(text))


def _lines(prefix: str, text: str) -> str:
    return "\n".join(f"{prefix}{line}" for line in str(text).split("\n"))


def _added(diff: str) -> str:
    """The lines a unified diff adds (what the agent wants written), without the removed and unchanged ones: those
    come from the file on disk, which may hold a secret the agent never sent."""
    lines = [line for line in diff.split("\n") if line.startswith("+") and not line.startswith("+++")]
    return "\n".join(lines) + "\n(removed and unchanged lines: in the app / 删除和未改动的行请在应用中查看)"


def _item_text(item: dict[str, Any]) -> tuple[str, str]:
    """(what the item is, its whole text) for IM: a file change as its new content or its edits, never a diff made
    from the file on disk (its removed lines could be a secret the agent never sent)."""
    kind = item.get("kind")
    if kind == "command":
        return "Command / 命令", str(item.get("command") or "")
    if kind == "write":
        return f"New content of {mark(str(item.get('path')))} / 新内容", str(item.get("content") or "")
    if kind == "edit":
        edits = item.get("edits") or []
        body = "\n".join(f"{_lines('- ', e.get('old', ''))}\n{_lines('+ ', e.get('new', ''))}" for e in edits)
        return f"Change to {mark(str(item.get('path')))} / 修改", body or _added(str(item.get("diff") or ""))
    if kind == "tool":
        return f"Input of {mark(str(item.get('tool')))} / 工具输入", str(item.get("text") or "")
    if kind == "commit":
        files = "\n".join(f"{f.get('status')} {f.get('path')}" for f in item.get("files") or [])
        return (f"Commit of tree {item.get('tree')} / 提交",
                f"{item.get('message') or ''}\n{files}\nHooks: {', '.join(item.get('hooks') or []) or 'none'}")
    return "Item / 项目", ""


def _items(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """What the approval carries: its `approves`, or a tool's input in `details.input` (older tool cards)."""
    items = stored_items(spec)
    details = spec.get("details")
    if items or not carries_items(spec) or not isinstance(details, dict):
        return items
    return [{"kind": "tool", "tool": details.get("tool") or "the tool",
             "text": json.dumps(details.get("input"), ensure_ascii=False, indent=2)}]


def approves_text(spec: dict[str, Any]) -> str | None:
    """What the approval approves, every item whole, as IM text; None when there is nothing (or too much) to show."""
    parts = []
    for item in _items(spec):
        what, body = _item_text(item)
        parts.append(f"{what} ({len(body):,} characters / 字符):\n{_visible(body)}")
    text = "\n\n".join(parts)
    return text if parts and len(text) <= MAX_APPROVES_IN_TEXT else None


def review_text(spec: dict[str, Any]) -> str | None:
    """A review's content as IM text: whole, hidden characters marked and long runs of spaces counted; None when
    that does not fit a message (then it is approved only in the app)."""
    shown = _visible(str(spec.get("content") or ""))
    return shown if len(shown) <= MAX_APPROVES_IN_TEXT else None


def only_in_the_app(spec: dict[str, Any]) -> bool:
    """An approval that carries what it approves (a command, a file change, a tool's input, a commit): approved in
    the app, where all of it is shown, never by text; here it can only be rejected
    (docs/security.md#what-an-approval-shows)."""
    return carries_items(spec)


def title_of(spec: dict[str, Any]) -> str:
    """A question's title as IM text shows it: hidden and direction-changing characters marked."""
    return mark(str(spec.get("title") or ""))


def in_the_app(spec: dict[str, Any], number: int) -> str:
    """The answer to a yes by text to an approval that carries what it approves, or to a review too long for a
    message: nothing was approved, and why."""
    if spec.get("type") == "review":
        return (f"#{number} {title_of(spec)}: this review is too long for a message, so it is approved in the LineUp "
                f"app, where all of it is shown. Nothing was approved. Here you can request changes: reply #{number} "
                f"changes. / 内容过长，只能在 LineUp 应用中阅读全文后通过，本次未通过；"
                f"在此可要求修改：回复 #{number} 修改。")
    if not only_in_the_app(spec):  # a plain approval's "always" option
        return (f"#{number} {title_of(spec)}: “Always” and “for this session” are chosen in the LineUp app, where what "
                f"they allow is shown. Nothing was approved. Here you can reject: reply #{number} reject. "
                f"/ “总是”和“本次会话”类选项只能在 LineUp 应用中选择，本次未批准；在此可拒绝：回复 #{number} 拒绝。")
    return (f"#{number} {title_of(spec)}: approvals of commands, file changes and tool input are made in the LineUp "
            f"app, where all of it is shown. Nothing was approved. Here you can reject: reply #{number} reject. "
            f"/ 命令、文件修改和工具输入只能在 LineUp 应用中查看全部后批准，本次未批准；"
            f"在此可拒绝：回复 #{number} 拒绝。")


def render_question(spec: dict[str, Any], number: int, several_open: bool) -> str:
    lines = [f"❓ #{number} {title_of(spec)}"]
    if spec.get("description"):
        lines.append(mark(str(spec["description"])))
    if spec.get("impact"):
        lines.append(f"Impact: {mark(str(spec['impact']))}")
    if spec.get("risk") == "high":
        reasons = "; ".join(spec.get("riskReasons") or [])
        lines.append("Risk: high / 高风险" + (f" ({reasons})" if reasons else ""))
    shown = approves_text(spec)
    if shown is not None:
        lines.append(shown)
    elif only_in_the_app(spec):
        size = sum(len(_item_text(item)[1]) for item in _items(spec))
        lines.append(f"What this approves is {size:,} characters, too long for a message: open LineUp to read all of "
                     "it. / 内容过长，请在 LineUp 中查看全文。")
    if spec["type"] == "review":
        review = review_text(spec)
        if review is None:  # never a part that reads as the whole: none of it, and approved in the app
            size = len(str(spec.get("content") or ""))
            lines.append(f"The review is {size:,} characters, too long for a message: open LineUp to read all of it. "
                         "/ 内容过长，请在 LineUp 中查看全文。")
        elif review:
            lines.append(review)
        lines += ["1. Approve" + (" (in the app / 在应用中)" if review is None else " / 通过"),
                  "2. Request changes / 需要修改"]
    for index, option in enumerate(spec.get("options", []), start=1):
        recommended = " (recommended)" if option.get("recommended") else ""
        where = " (in the app / 在应用中)" if not_by_text(spec, {"optionId": option["id"]}) else ""
        lines.append(f"{index}. {mark(option['label'])}{recommended}{where}")
    lines.append(how_to_answer(spec, number, several_open))
    return "\n".join(lines)


def describe_answer(spec: dict[str, Any], response: dict[str, Any] | None, outcome: str) -> str:
    """A short human form of a stored answer, for the confirmation."""
    if outcome == "cancelled" and response and response.get("cause") == "withdrawn":
        reason = f": {response['reason']}" if response.get("reason") else ""
        return f"withdrawn by the agent{reason}; it can no longer be answered / 智能体已撤回，无法再回答"
    if outcome == "cancelled" and response and response.get("cause") in ("task_ended", "task_cancelled"):
        return "closed: its task ended; it can no longer be answered / 任务已结束，无法再回答"
    if outcome in ("expired", "cancelled"):
        return {"expired": "expired / 已过期", "cancelled": "cancelled / 已取消"}[outcome]
    if not response or response.get("declined"):
        return "declined / 已拒绝回答"
    labels = {o["id"]: mark(str(o["label"])) for o in spec.get("options", [])}
    if "optionId" in response:
        return str(labels.get(response["optionId"], response["optionId"]))
    if "optionIds" in response:
        return ", ".join(str(labels.get(i, i)) for i in response["optionIds"])
    if "decision" in response:
        return "Approve / 通过" if response["decision"] == "approve" else "Request changes / 需要修改"
    if "text" in response:
        return f"“{response['text']}”"
    return outcome
