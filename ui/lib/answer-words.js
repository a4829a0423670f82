// What an answer says, in the words of the option the person tapped: for an answer given while offline, kept in the
// page until the connection is back ("Approve — queued, sends when back online"), so the card says which it was.

import { t } from './i18n.js';

const MAX_TEXT = 80; // a typed answer is quoted up to this many characters

function label(spec, id) {
  return (spec?.options || []).find((o) => o.id === id)?.label || id;
}

/** The answer `response` to interaction `it`, as the person chose it: an option's label, the labels, the text typed. */
export function answerWords(it, response) {
  const spec = it?.spec || {};
  if (!response) return '';
  if (response.declined) return t('card.decline');
  if (it.type === 'review') return t(response.decision === 'approve' ? 'card.review.approve' : 'card.review.changes');
  if (it.type === 'input') {
    const text = String(response.text ?? '');
    return `“${text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text}”`;
  }
  const ids = response.optionIds || (response.optionId ? [response.optionId] : []);
  if (!ids.length) return '';
  return ids.map((id) => label(spec, id) || (it.type === 'approval' ? t('card.approve') : id)).join(', ');
}

/** The line under a card whose answer waits for the connection: the answer's words, then that it is queued. */
export function queuedLine(it, response) {
  const words = answerWords(it, response);
  return words ? t('card.submit.queuedAnswer', { answer: words }) : t('card.submit.queued');
}
