"""Writes a HEIC (HEVC in HEIF, as iPhones write photos) of an image, for test fixtures.

Node has no HEVC encoder, so the fixtures are made here with the system's libheif (Debian's
libheif1 with x265) through ctypes. Usage: python3 scripts/heic-fixture.py in.jpg out.heic [quality]
(the input is decoded to RGB by Node and sharp first: `node` must be on the PATH).
"""
import ctypes
import os
import subprocess
import sys
from ctypes import POINTER, Structure, byref, c_char_p, c_int, c_void_p


class HeifError(Structure):
    _fields_ = [('code', c_int), ('subcode', c_int), ('message', c_char_p)]


def main(src: str, out: str, quality: int) -> None:
    # sharp from this repository's node_modules, wherever the command is run from
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    raw = subprocess.run(['node', '-e', "require('sharp')(process.argv[1]).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({resolveWithObject:true}).then(({data,info})=>{process.stdout.write(info.width+' '+info.height+'\\n');process.stdout.write(data)})", os.path.abspath(src)], check=True, capture_output=True, cwd=repo).stdout
    head, pixels = raw.split(b'\n', 1)
    width, height = map(int, head.split())
    lib = ctypes.CDLL('libheif.so.1')
    for name in ['heif_context_get_encoder_for_format', 'heif_image_create', 'heif_image_add_plane', 'heif_context_encode_image', 'heif_context_write_to_file', 'heif_encoder_set_lossy_quality']:
        getattr(lib, name).restype = HeifError
    lib.heif_context_alloc.restype = c_void_p
    lib.heif_image_get_plane.restype = POINTER(ctypes.c_uint8)

    def check(err: HeifError, what: str) -> None:
        if err.code:
            raise SystemExit(f'{what}: {err.code}/{err.subcode} {err.message!r}')

    ctx = c_void_p(lib.heif_context_alloc())
    encoder = c_void_p()
    check(lib.heif_context_get_encoder_for_format(ctx, 1, byref(encoder)), 'HEVC encoder')  # heif_compression_HEVC
    check(lib.heif_encoder_set_lossy_quality(encoder, quality), 'quality')
    image = c_void_p()
    check(lib.heif_image_create(width, height, 1, 10, byref(image)), 'image')  # RGB, interleaved RGB
    check(lib.heif_image_add_plane(image, 10, width, height, 8), 'plane')
    stride = c_int()
    plane = lib.heif_image_get_plane(image, 10, byref(stride))
    base = ctypes.addressof(plane.contents)
    for y in range(height):
        ctypes.memmove(base + y * stride.value, pixels[y * width * 3:(y + 1) * width * 3], width * 3)
    handle = c_void_p()
    check(lib.heif_context_encode_image(ctx, image, encoder, None, byref(handle)), 'encode')
    check(lib.heif_context_write_to_file(ctx, out.encode()), 'write')
    print(f'{out}: {width}x{height}, quality {quality}')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 80)
