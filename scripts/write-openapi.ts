import fs from 'node:fs/promises';
import { generateOpenapi, openapiFile } from '../src/http/openapi.ts';

await fs.writeFile(openapiFile, await generateOpenapi());
console.log(`wrote ${openapiFile}`);
