// Settings → Notifications: browser notifications (the permission is asked here, from a click), Web Push to this
// device and the person's devices that get pushes (each can be stopped), the hub's delivery log per channel (counts,
// the last error, the latest deliveries) and "send test notification".

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatDateTime, formatAgo } from '../lib/i18n.js';
import { DELIVERY_STATUSES, channelName, describe, kindWord, statusWord } from '../lib/notifications.js';
import { listPushDevices, pushSupport, stopPushDevice, turnOnPush } from '../lib/web-push.js';

const STATUS_LOOK = {
  delivered: { icon: 'succeeded', tone: 'success' },
  pending: { icon: 'clock', tone: 'waiting' },
  failed: { icon: 'failed', tone: 'danger' },
  skipped: { icon: 'cancelled', tone: 'neutral' },
};
const RECENT_SHOWN = 5;

function statusBadge(status) {
  const look = STATUS_LOOK[status] || STATUS_LOOK.skipped;
  return html`<span class="badge tone-${look.tone}" data-status=${status}>${icon(look.icon)}<span>${statusWord(status)}</span></span>`;
}

export class LineupNotificationSettings extends LineupElement {
  static properties = ['state'];

  connectedCallback() {
    super.connectedCallback();
    this.emit('lineup-notification-log-load');
    this._loadPush();
  }

  /** The person's devices that get pushes; `busy` is what a click is doing meanwhile. */
  async _loadPush(patch = {}) {
    this.push = { ...this.push, ...patch };
    this.requestUpdate();
    try {
      const { devices } = await listPushDevices();
      this.push = { ...this.push, devices, error: null };
    } catch (error) {
      this.push = { ...this.push, error };
    }
    this.requestUpdate();
  }

  async _pushAction(busy, work) {
    this.push = { ...this.push, busy, error: null };
    this.requestUpdate();
    try {
      await work();
      await this._loadPush({ busy: null });
    } catch (error) {
      this.push = { ...this.push, busy: null, error };
      this.requestUpdate();
    }
  }

  render() {
    const { state } = this;
    if (!state) return '';
    return html`<section class="card settings-section notification-settings" aria-labelledby="settings-notifications">
      <h2 id="settings-notifications">${icon('inbox')} ${t('notify.settingsTitle')}</h2>
      <p class="muted small">${t('notify.settingsIntro')}</p>
      ${this._browser(state.browserNotify)}
      ${this._webPush(this.push || {})}
      ${this._log(state.notificationLog)}
      ${this._test(state.notificationTest)}
    </section>`;
  }

  _browser(browser) {
    if (!browser) return ''; // the app is still connecting (lib/workspace.js start())
    let look;
    let word;
    let hint = '';
    let action = '';
    const enable = html`<button class="button primary small browser-notify-enable"
      @click=${() => this.emit('lineup-browser-notifications-enable')}>${t('notify.browserTurnOn')}</button>`;
    if (!browser.supported) {
      [look, word, hint] = [{ icon: 'offline', tone: 'neutral' }, t('notify.browserUnsupported'), t('notify.browserUnsupportedHint')];
    } else if (!browser.secure) {
      [look, word, hint] = [{ icon: 'warning', tone: 'waiting' }, t('notify.browserInsecure'), t('notify.browserInsecureHint')];
    } else if (browser.permission === 'denied') {
      [look, word, hint] = [{ icon: 'cancelled', tone: 'danger' }, t('notify.browserBlocked'), t('notify.browserBlockedHint')];
    } else if (browser.enabled) {
      [look, word, hint] = [{ icon: 'succeeded', tone: 'success' }, t('notify.browserOn'), t('notify.browserOnHint')];
      action = html`<button class="button small browser-notify-disable"
        @click=${() => this.emit('lineup-browser-notifications-disable')}>${t('notify.browserTurnOff')}</button>`;
    } else {
      [look, word, hint, action] = [{ icon: 'queued', tone: 'neutral' }, t('notify.browserOff'), t('notify.browserOffHint'), enable];
    }
    return html`<div class="settings-block browser-notify" data-permission=${browser.permission}
        data-enabled=${browser.enabled ? 'true' : 'false'}>
      <h3>${t('notify.browserTitle')}</h3>
      <p class="settings-status"><span class="badge tone-${look.tone}">${icon(look.icon)}<span>${word}</span></span>
        <span class="muted small">${hint}</span></p>
      ${action ? html`<div class="button-row">${action}</div>` : ''}
    </div>`;
  }

  _webPush(push) {
    const support = pushSupport();
    const devices = push.devices || [];
    const here = devices.find((d) => d.thisDevice);
    let hint = t('notify.pushHint');
    if (support === 'insecure') hint = t('notify.pushInsecure');
    else if (support === 'unsupported') hint = t('notify.pushUnsupported');
    else if (support === 'denied') hint = t('notify.browserBlockedHint');
    const failed = push.error ? (push.error.code === 'permission' ? t('notify.pushPermission')
      : t('notify.pushFailed', { error: push.error.message || '' })) : '';
    return html`<div class="settings-block web-push" data-support=${support} data-subscribed=${here ? 'true' : 'false'}>
      <h3>${t('notify.pushTitle')}</h3>
      <p class="muted small">${hint}</p>
      ${support === 'ready' && !here ? html`<div class="button-row"><button class="button primary small push-enable"
        ?disabled=${Boolean(push.busy)} @click=${() => this._pushAction('enable', turnOnPush)}>${t('notify.pushTurnOn')}</button></div>` : ''}
      ${failed ? html`<p class="field-error" role="alert">${failed}</p>` : ''}
      ${devices.length ? html`<ul class="plain-list push-devices" aria-label=${t('notify.pushDevices')}>
        ${devices.map((d) => html`<li class="push-device" data-id=${d.id} data-this-device=${d.thisDevice ? 'true' : 'false'}>
          <span><strong class="push-device-name" translate="no">${d.name}</strong>${d.thisDevice ? html` <span class="badge tone-neutral">${t('notify.pushThisDevice')}</span>` : ''}
            <span class="muted small">${d.lastSentAt ? t('notify.pushLastSent', { time: formatAgo(d.lastSentAt) }) : t('notify.pushNothingYet')}</span>
            ${d.lastError ? html`<code class="small prewrap">${d.lastError}</code>` : ''}</span>
          <button class="button small push-stop" ?disabled=${Boolean(push.busy)}
            aria-label=${t('notify.pushStopDevice', { name: d.name })}
            @click=${() => this._pushAction(`stop:${d.id}`, () => stopPushDevice(d.id))}>${t('notify.pushStop')}</button>
        </li>`)}</ul>`
        : html`<p class="small push-none">${push.devices ? t('notify.pushNone') : t('app.loading')}</p>`}
    </div>`;
  }

  _log(log) {
    const loading = !log || (!log.channels && log.status !== 'error');
    return html`<div class="settings-block delivery-log">
      <div class="section-head"><h3>${t('notify.logTitle')}</h3>
        <button class="button ghost small delivery-log-refresh" @click=${() => this.emit('lineup-notification-log-load')}>
          ${t('notify.logRefresh')}</button></div>
      ${loading ? html`<p class="muted" role="status">${t('app.loading')}</p>` : ''}
      ${log?.status === 'error' ? html`<p class="field-error" role="alert">${t('notify.logFailed', { error: log.error?.message || '' })}</p>` : ''}
      ${log?.configError ? html`<div class="tone-box-danger" role="alert"><strong>${icon('warning')} ${t('notify.configError')}</strong>
        <code class="prewrap">${log.configError}</code></div>` : ''}
      ${log?.quietHours ? html`<p class="small">${icon('clock')} ${t('notify.quietHours', { from: log.quietHours[0], to: log.quietHours[1] })}</p>` : ''}
      ${log?.channels ? html`<ul class="plain-list channel-list">
        ${Object.entries(log.channels).map(([name, channel]) => this._channel(name, channel))}</ul>` : ''}
      ${log?.loadedAt ? html`<p class="muted small">${t('notify.logLoaded', { time: formatDateTime(log.loadedAt) })}</p>` : ''}
    </div>`;
  }

  _channel(name, channel) {
    const counts = channel.counts || {};
    const statuses = [...DELIVERY_STATUSES, ...Object.keys(counts).filter((s) => !DELIVERY_STATUSES.includes(s))];
    const recent = (channel.recent || []).slice(0, RECENT_SHOWN);
    const last = channel.lastError;
    return html`<li class="channel" data-channel=${name}>
      <div class="channel-head"><h4 class="channel-name">${channelName(name)}</h4>
        <span class="muted small">${t('notify.kinds', { kinds: (channel.kinds || []).map(kindWord).join(' · ') })}</span></div>
      <p class="channel-counts">${statuses.filter((s) => counts[s]).map((s) => html`<span class="channel-count" data-status=${s}>
        ${statusBadge(s)}<span class="count">${counts[s]}</span></span>`)}
        ${!statuses.some((s) => counts[s]) ? html`<span class="muted small">${t('notify.nothingYet')}</span>` : ''}</p>
      ${last ? html`<div class="tone-box-danger last-error"><strong>${icon('warning')} ${t('notify.lastError', { time: formatDateTime(last.created_at || last.createdAt) })}</strong>
        <code class="prewrap">${last.last_error || last.lastError}</code></div>`
        : html`<p class="small no-error">${icon('check')} ${t('notify.noErrors')}</p>`}
      ${recent.length ? html`<details class="recent-deliveries">
        <summary>${t('notify.recent', { n: recent.length })}</summary>
        <ul class="plain-list delivery-list">${recent.map((d) => html`<li class="delivery" data-kind=${d.kind}>
          ${statusBadge(d.status)}
          <span class="delivery-title">${describe(d, this.state).heading || kindWord(d.kind)}</span>
          <span class="muted small">${kindWord(d.kind)} · <time datetime=${d.createdAt}>${formatAgo(d.createdAt)}</time>
            ${d.attempts > 1 ? html` · ${t('notify.attempts', { n: d.attempts })}` : ''}</span>
          ${d.lastError && d.status !== 'delivered' ? html`<code class="small prewrap delivery-error">${d.lastError}</code>` : ''}
        </li>`)}</ul></details>` : ''}
    </li>`;
  }

  _test(test) {
    const sending = test?.status === 'sending';
    return html`<div class="settings-block">
      <div class="button-row">
        <button class="button send-test-notification" ?disabled=${sending}
          @click=${() => this.emit('lineup-notification-test-send', { channel: null })}>${icon('send')}<span>${t('notify.sendTest')}</span></button>
        <span class="small test-status" role="status">${sending ? t('notify.testSending')
          : test?.status === 'sent' ? html`${icon('check')} ${t('notify.testSent')}`
          : test?.status === 'error' ? html`<span class="field-error">${t('notify.testFailed', { error: test.error?.message || '' })}</span>` : ''}</span>
      </div>
    </div>`;
  }
}

LineupNotificationSettings.define('lineup-notification-settings');
