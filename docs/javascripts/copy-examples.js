// The copy button of an example written as a Python session (">>>" prompts, doctested by
// the test suite) copies the code alone, ready to paste into a file or an interpreter: the
// ">>> " and "... " prompts are taken off and the output lines are left out. Material's
// button copies an ancestor's data-copy text when there is one; document$ runs this on
// every page view, instant navigation included.
document$.subscribe(function () {
  document.querySelectorAll("div.highlight pre > code").forEach(function (code) {
    var lines = code.textContent.split("\n");
    if (!lines.some(function (line) { return /^>>>( |$)/.test(line); })) {
      return;
    }
    var kept = [];
    lines.forEach(function (line) {
      if (/^(>>>|\.\.\.)( |$)/.test(line)) {
        kept.push(line.replace(/^(>>>|\.\.\.) ?/, ""));
      }
    });
    code.closest("div.highlight").setAttribute("data-copy", kept.join("\n"));
  });
});
