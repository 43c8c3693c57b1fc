/*
 * The workbench's JSON API (apps/workbench): one function that sends a request and turns a
 * refusal into an ApiError carrying the server's one-line message and the field it names.
 */
export class ApiError extends Error {
  constructor(message, field, status) {
    super(message);
    this.field = field ?? null;
    this.status = status;
  }
}

/** ``method`` ``path`` with a JSON body (or FormData, sent as multipart); the parsed reply. */
export async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(`the workbench server does not answer (${e.message}): is it still running?`);
  }
  if (!response.ok) {
    let doc = {};
    try {
      doc = await response.json();
    } catch (_) {
      doc = {};
    }
    const text = doc.error || `${response.status} ${response.statusText}`;
    throw new ApiError(text, doc.field, response.status);
  }
  if (response.status === 204) return null;
  return response.json();
}

export const enc = encodeURIComponent;
