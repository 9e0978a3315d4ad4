// The Experiments page, live: each experiment's section is re-rendered by the server and streamed
// (server-sent events) while it runs; Run and Stop post in the background and show a refusal in
// place. Without this script the forms post normally and a reload shows the progress.
'use strict';

// postInBackground comes from console.js, which every page loads first.
/* global postInBackground */
function bindForms(root) {
  root.querySelectorAll('form[data-experiment-action]').forEach((form) => {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const result = document.getElementById('action-result-' + form.dataset.experimentAction);
      void postInBackground(form, result);
    });
  });
}

function liveExperiments(container) {
  bindForms(container);
  const source = new EventSource(container.dataset.stream);
  source.addEventListener('experiment', (message) => {
    const update = JSON.parse(message.data);
    const existing = document.getElementById('experiment-' + update.id);
    if (!existing) return;
    const template = document.createElement('template');
    template.innerHTML = update.html.trim();
    const fresh = template.content.firstElementChild;
    existing.replaceWith(fresh);
    bindForms(fresh);
  });
}

document.querySelectorAll('#experiments[data-stream]').forEach(liveExperiments);
