// The inbox's receipts: what became of the questions answered on this screen, whose cards leave the inbox once
// answered. Said from the hub's record of the question when the app has it, else from the answer's own state.

import { html } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t, formatTime } from './i18n.js';

const approvingOption = (option) => option.id !== 'reject' && option.style !== 'danger';

/** The outcome in one word: "Approved" / "Rejected" for an approval, else "Answered" (or the hub's "Declined"). */
function outcomeWord(receipt, response, recorded) {
  if (receipt.type === 'approval' && response?.optionId) {
    const options = receipt.options || [{ id: 'reject', style: 'danger' }, { id: 'approve', style: 'primary' }];
    const option = options.find((o) => o.id === response.optionId) || { id: response.optionId };
    return approvingOption(option) ? t('card.decided.approvedPlain') : t('card.decided.rejectedPlain');
  }
  return t(`card.outcome.${recorded?.status === 'declined' ? 'declined' : 'answered'}`);
}

/** Where the answer is: sending, failed, or recorded by the hub (the agent is told, with the note if there was one). */
function fate(receipt, answer, recorded, agentName) {
  if (answer?.status === 'failed') return ['danger', t('inbox.receipt.failed')];
  if (recorded && recorded.status !== 'pending') {
    return ['success', t(answer?.response?.comment ? 'inbox.receipt.toldNote' : 'inbox.receipt.told', { agent: agentName })];
  }
  return ['waiting', t('inbox.receipt.sending')];
}

/** The receipts block, or '' when nothing was answered here. */
export function receiptsBlock(state) {
  const receipts = state.receipts || [];
  if (!receipts.length) return '';
  return html`<section class="inbox-receipts" aria-labelledby="inbox-receipts-title">
    <h3 id="inbox-receipts-title" class="small muted">${t('inbox.receipts')}</h3>
    <ul class="plain-list">${receipts.map((receipt) => {
      const answer = state.answers?.[receipt.id];
      const recorded = (state.interactions || []).find((i) => i.id === receipt.id);
      const agent = (state.agents || []).find((a) => a.id === receipt.agentId);
      const [tone, words] = fate(receipt, answer, recorded, agent?.name || t('who.agent'));
      const word = outcomeWord(receipt, answer?.response, recorded);
      const no = word === t('card.decided.rejectedPlain') || word === t('card.outcome.declined');
      const href = receipt.taskId ? `#/tasks?task=${encodeURIComponent(receipt.taskId)}` : '';
      return html`<li class="receipt small" data-interaction-id=${receipt.id} data-fate=${tone}>
        <span class="badge tone-${no ? 'danger' : 'success'}">${icon(no ? 'failed' : 'succeeded')}<span>${word}</span></span>
        ${href ? html`<a href=${href}>${receipt.title}</a>` : html`<span>${receipt.title}</span>`}
        <span class="receipt-fate ${tone === 'danger' ? 'tone-text-danger' : 'muted'}">${icon(tone === 'success' ? 'check'
          : tone === 'danger' ? 'warning' : 'waiting')} ${words} · <time datetime=${receipt.at}>${formatTime(receipt.at)}</time></span>
      </li>`;
    })}</ul></section>`;
}
