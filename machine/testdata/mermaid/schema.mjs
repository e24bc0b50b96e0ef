// Validates JSON instances against a JSON Schema (draft-07) with Ajv, the
// validator many editors use, in strict mode (so the schema itself is
// checked too). Usage: node schema.mjs SCHEMA.json INSTANCE.json...
// Prints "ok FILE" or "FAIL FILE: errors" per instance; exits 1 when any failed.
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';

const [schemaFile, ...files] = process.argv.slice(2);
const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
let failed = 0;
for (const file of files) {
  if (validate(JSON.parse(readFileSync(file, 'utf8')))) {
    console.log(`ok ${file}`);
  } else {
    failed++;
    console.log(`FAIL ${file}: ${ajv.errorsText(validate.errors)}`);
  }
}
process.exit(failed ? 1 : 0);
