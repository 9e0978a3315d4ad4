// The console's only script: live rows from server-sent events, and fragments that refresh
// themselves (data-refresh-url). Every page works without it, only less live.
'use strict';

function liveOrders(table) {
  const body = table.tBodies[0];
  const max = Number(table.dataset.maxRows || 50);
  const source = new EventSource(table.dataset.stream);
  source.addEventListener('orders', (message) => {
    for (const row of JSON.parse(message.data)) {
      const template = document.createElement('template');
      template.innerHTML = row.html.trim();
      const fresh = template.content.firstElementChild;
      const existing = document.getElementById('order-' + row.id);
      if (existing) existing.replaceWith(fresh);
      else body.prepend(fresh);
    }
    while (body.rows.length > max) body.deleteRow(body.rows.length - 1);
  });
}

function refreshing(element) {
  const url = element.dataset.refreshUrl;
  const every = Number(element.dataset.refreshMs || 2000);
  // Replaced only when the fragment changed: a finished load run's summary stays the same node,
  // so a click on its report link is never lost to a refresh and an opened <details> stays open.
  let shown;
  const tick = async () => {
    try {
      const response = await fetch(url, { headers: { accept: 'text/html' } });
      const fragment = response.ok ? await response.text() : shown;
      if (fragment !== shown) element.innerHTML = shown = fragment;
    } catch {
      // The console restarting: try again at the next tick.
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
}

// Posts a form in the background as the server's actions expect it (URL-encoded, answered in
// JSON) and says the outcome in `result`: nothing on success unless `onAccepted` writes it, the
// status and the reason when refused. Also used by the other pages' scripts (loaded after this one).
async function postInBackground(form, result, onAccepted) {
  result.textContent = 'Sending…';
  try {
    const response = await fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams(new FormData(form)),
    });
    const answer = await response.json();
    if (!response.ok) {
      result.textContent = 'Refused (' + response.status + '): ' + (answer.reason || answer.error);
      return;
    }
    result.textContent = '';
    if (onAccepted) onAccepted(answer);
  } catch (error) {
    result.textContent = 'Failed: ' + error.message;
  }
}

// A form marked data-async posts in the background, so the live list keeps streaming; its answer
// (or the reason it was refused) goes to the element named by data-result.
function asyncForm(form) {
  const result = document.getElementById(form.dataset.result);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void postInBackground(form, result, (answer) => {
      const link = document.createElement('a');
      link.href = '/orders/' + answer.orderId;
      link.textContent = answer.orderId;
      result.append('Placed order ', link, ' (' + answer.outcome + ').');
    });
  });
}

document.querySelectorAll('table[data-stream]').forEach(liveOrders);
document.querySelectorAll('form[data-async]').forEach(asyncForm);
document.querySelectorAll('[data-refresh-url]').forEach(refreshing);
