// trawl serve: a few lines only. Pages work without JavaScript; this drops empty filter fields
// from the query string so URLs stay short and shareable.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method !== "get") return;
  for (const input of form.querySelectorAll("input[name]")) {
    if (input.value === "") input.disabled = true;
  }
  setTimeout(() => form.querySelectorAll("input[name]").forEach((i) => { i.disabled = false; }), 0);
});
