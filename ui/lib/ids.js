// Envelope and object ids made in the browser: sortable and unique, also where crypto.randomUUID is missing
// (it exists only in secure contexts, and a hub on the LAN is plain http).

export function newId(prefix) {
  const random = new Uint8Array(10);
  crypto.getRandomValues(random);
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}${hex}`;
}
