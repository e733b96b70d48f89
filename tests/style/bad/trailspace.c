/* A file that breaks one rule of scripts/checksrc (named by the file). */
int x; 
