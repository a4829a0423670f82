// Which element shows an interaction: the built-in card, or the element a plugin registered for its type.

import { html } from '../vendor/lit-html/lit-html.js';
import { registry } from './registry.js';

const pluginCards = new Map(); // `${context}:${interaction id}` -> element made for a plugin's card type

/** An interaction card for `interaction`, given the workspace state; `context` says where it is shown. */
export function interactionCard(interaction, state, context = 'stream') {
  const answer = state.answers[interaction.id];
  const tag = registry.cards.get(interaction.type);
  if (tag && customElements.get(tag)) {
    const key = `${context}:${interaction.id}`;
    let element = pluginCards.get(key);
    if (!element || element.localName !== tag) {
      element = document.createElement(tag);
      pluginCards.set(key, element);
    }
    Object.assign(element, { interaction, answer, state, me: state.me, context });
    return element;
  }
  return html`<lineup-interaction-card .interaction=${interaction} .answer=${answer} .state=${state}
    .context=${context}></lineup-interaction-card>`;
}
