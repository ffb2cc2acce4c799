declare module 'sharp-phash';
