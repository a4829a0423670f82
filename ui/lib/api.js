// HTTP calls to the hub's /api: the bearer token in the header (never in a URL), errors as ApiError.

export class ApiError extends Error {
  constructor(status, code, message, hint = '') {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

/**
 * `getToken()` is read on every call; `onUnauthorized(error)` runs when a call made with a token is refused
 * with 401 (the device was revoked or the token is unknown), so the app can sign out.
 */
export function createApi({ getToken = () => null, onUnauthorized = () => {} } = {}) {
  async function request(method, path, body) {
    const token = getToken();
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method, headers, cache: 'no-store', credentials: 'omit',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiError(0, 'network', error.message || 'network error');
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok) {
      const err = (data && data.error) || {};
      const apiError = new ApiError(response.status, err.code || `http_${response.status}`,
        err.message || response.statusText, err.hint || '');
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

/** A short, human name for this browser, shown in the devices list ("Chrome on Android"). */
export function deviceName() {
  const ua = navigator.userAgent || '';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? `${browser} on ${os}` : browser;
}
