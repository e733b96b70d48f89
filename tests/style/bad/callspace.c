/* A file that breaks one rule of scripts/checksrc (named by the file). */
int g(int a);

int f(int a)
{
	return g (a);
}
