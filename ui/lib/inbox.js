// What the inbox lists and counts (docs/design.md#inbox-and-task-lists): child tasks are shown inside their parent, not
// on their own.

export function inboxLists(state) {
  const topLevel = (task) => !task.parentTaskId;
  return {
    waitingForMe: state.inbox.waitingForMe,
    needsAttention: state.inbox.needsAttention.filter(topLevel),
    recentlyCompleted: state.inbox.recentlyCompleted.filter(topLevel),
  };
}

/** Items that wait for the person: questions to answer and tasks that failed or lost their agent. */
export function inboxCount(state) {
  const lists = inboxLists(state);
  return waitingTotal(state) + lists.needsAttention.length;
}

/** How many questions wait in all: the hub sends the oldest page of them and the total (GET /api/inbox). */
export function waitingTotal(state) {
  return Math.max(state.inbox.waitingForMeTotal ?? 0, state.inbox.waitingForMe.length);
}

export function unreadCount(state) {
  const lists = inboxLists(state);
  return [...lists.waitingForMe, ...lists.needsAttention].filter((item) => !state.seenInbox.has(item.id)).length;
}
