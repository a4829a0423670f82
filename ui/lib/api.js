// HTTP calls to the hub's /api: the bearer token in the header (never in a URL), errors as ApiError. While the page
// talks through the relay the same calls go through it instead (lib/relay-requests.js), answered by the same routes.

import { requestInit, takeEarly } from './early.js';

export { deviceName } from './early.js';

// Set by lib/hub-connection.js while the relay carries the page: (method, path, body) → Promise<Response>.
let relayRoute = null;

export function routeThroughRelay(route) {
  relayRoute = route;
}

/** The relay's way to the hub while the page talks through it, else null (lib/files.js asks too). */
export function relayed() {
  return relayRoute;
}

export class ApiError extends Error {
  constructor(status, code, message, hint = '', details = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

/**
 * `getToken()` is read on every call; `onUnauthorized(error)` runs when a call made with a token is refused
 * with 401 (the device was revoked or the token is unknown), so the app can sign out.
 */
export function createApi({ getToken = () => null, onUnauthorized = () => {} } = {}) {
  async function request(method, path, body) {
    const token = getToken();
    const sent = body === undefined ? undefined : JSON.stringify(body);
    let response;
    try {
      response = await (relayRoute ? relayRoute(method, path, sent)
        : takeEarly(method, path, token, sent) || fetch(path, requestInit(method, token, sent)));
    } catch (error) {
      throw new ApiError(0, 'network', error.message || 'network error');
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      // Every answer of the hub's is JSON: a success without its body was cut off on the way (the network went
      // while it arrived), so the call failed as if no answer had come, never "succeeded with nothing".
      if (response.ok) throw new ApiError(0, 'network', error.message || 'the answer arrived incomplete');
      data = null;
    }
    if (!response.ok) {
      const err = (data && data.error) || {};
      const apiError = new ApiError(response.status, err.code || `http_${response.status}`,
        err.message || response.statusText, err.hint || '', err.details || null);
      if (response.status === 401 && token) onUnauthorized(apiError);
      throw apiError;
    }
    return data;
  }

  return {
    get: (path) => request('GET', path),
    post: (path, body = {}) => request('POST', path, body),
  };
}
