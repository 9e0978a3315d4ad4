// The consumer groups page, narrowed live as the filter is typed (the form's ?filter= does the
// same without JavaScript), and the folded "other groups" kept as the user left them when
// console.js refreshes the list every 2 s.
'use strict';

(function groupsFilter() {
  const input = document.getElementById('group-filter');
  const list = document.getElementById('groups');
  if (!input || !list) return;
  // undefined until the user opens or closes it: then the server's choice (open when filtered) stands.
  let otherOpen;

  function apply() {
    const wanted = input.value.trim().toLowerCase();
    list.querySelectorAll('section.group[data-group]').forEach((section) => {
      section.hidden = wanted !== '' && !section.dataset.group.toLowerCase().includes(wanted);
    });
    const other = document.getElementById('other-groups');
    if (!other) return;
    const shown = other.querySelectorAll('section.group[data-group]:not([hidden])').length;
    const count = other.querySelector('[data-field="other-count"]');
    if (count) count.textContent = String(shown);
    if (wanted !== '' && shown > 0) other.open = true;
    else if (otherOpen !== undefined) other.open = otherOpen;
  }

  list.addEventListener(
    'toggle',
    (event) => {
      if (event.target.id === 'other-groups' && input.value.trim() === '') otherOpen = event.target.open;
    },
    true,
  );
  input.addEventListener('input', apply);
  new MutationObserver(apply).observe(list, { childList: true });
})();
