// What the inbox lists and counts (seed 002 §6): child tasks are shown inside their parent, not on their own.

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
  return lists.waitingForMe.length + lists.needsAttention.length;
}

export function unreadCount(state) {
  const lists = inboxLists(state);
  return [...lists.waitingForMe, ...lists.needsAttention].filter((item) => !state.seenInbox.has(item.id)).length;
}
